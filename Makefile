# Two commands set everything up on a fresh machine:
#   make run    builds orcs and runs the main job on a shipped fabric
#   make test   installs what the tests need and runs them all
GO ?= go

.PHONY: all build run test unit deps fuzz bench clean

all: build

build:
	$(GO) build -o bin/orcs ./orcs

run: build
	bin/orcs --ptrn bisect_fb_sym --metric hist_acc_band -n 1000 --seed 1 -i testdata/ft64.dot

deps:
	scripts/deps.sh

# unit: formatting, vet and every package's tests (fuzz targets run their
# seed corpora).
unit:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { gofmt -l .; echo "gofmt needed"; exit 1; }
	$(GO) vet ./...
	$(GO) test -count=1 ./...

test: deps build unit
	bash test/slurm/shards_test.sh bin/orcs testdata/ft64.dot

# fuzz: long fuzzing by hand (FUZZTIME per target); commit what it finds.
FUZZTIME ?= 60s
fuzz:
	scripts/fuzz.sh $(FUZZTIME)

bench:
	bench/run.sh

clean:
	rm -rf bin bench/out
