package patterns_test

import (
	"fmt"
	"os"

	"orcs/patterns"
	"orcs/rng"
)

func ExamplePrint() {
	src, err := patterns.Compile(patterns.Spec{Name: "tree"}, 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	patterns.Print(os.Stdout, src.Levels(nil, nil), func(rank int) string { return fmt.Sprintf("H%d", rank) })
	// Output:
	// Used Pattern:
	// =================
	//     0 -> 1       |   H0 -> H1
	// =================
	//
	// Used Pattern:
	// =================
	//     0 -> 2       |   H0 -> H2
	//     1 -> 3       |   H1 -> H3
	// =================
}

func ExampleSource_Levels() {
	src, err := patterns.Compile(patterns.Spec{Name: "ptrnvsptrn", First: "tree", Second: "rand", Part: 4}, 8)
	if err != nil {
		fmt.Println(err)
		return
	}
	var scratch []patterns.Level
	for run := range 2 {
		scratch = src.Levels(rng.New(42, uint64(run)), scratch)
		fmt.Println(src.Random(), src.FirstRanks(), len(scratch), len(scratch[0]))
	}
	// Output:
	// true 4 2 5
	// true 4 2 5
}
