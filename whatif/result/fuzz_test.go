package result

import (
	"bytes"
	"testing"
)

// FuzzReadJSON feeds arbitrary bytes to the reader of orcs merge: an error
// naming the file, or a file whose JSON reads back the same.
func FuzzReadJSON(f *testing.F) {
	var b bytes.Buffer
	fixture().WriteJSON(&b)
	f.Add(b.Bytes())
	f.Add([]byte(`{"format_version": 2}`))
	f.Add([]byte(`{"cables": 1, "engines": [{"sets": [{"index": -1}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := ReadJSON(bytes.NewReader(data), "x.json")
		if err != nil {
			if !bytes.Contains([]byte(err.Error()), []byte("x.json")) {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		if _, err := Merge([]*File{file}); err != nil {
			return
		}
		var out bytes.Buffer
		if err := file.WriteText(&out, 5); err != nil {
			t.Fatal(err)
		}
	})
}
