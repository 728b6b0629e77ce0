# Two commands set everything up on a fresh machine:
#   make run    builds orcs and runs the main job on a shipped fabric
#   make test   installs what the tests need and runs them all
GO ?= go

.PHONY: all build run test unit e2e deps fuzz bench clean

all: build

build:
	$(GO) build -o bin/orcs ./orcs
	$(GO) build -o bin/dot2osm ./dot2osm

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

# e2e: the end-to-end tests with the real InfiniBand tools (ibsim, OpenSM,
# infiniband-diags; make deps installs them): every OpenSM engine on 16- and
# 64-host fabrics, orcs route, compare and dot2osm, and orcs deadlock against
# ibdmchk (ibutils). make unit runs them too.
e2e:
	$(GO) test -count=1 -run 'Route|Compare|RoundTrip|Ibdmchk' ./opensm ./orcs ./dot2osm ./deadlock

test: deps build unit
	bash test/slurm/shards_test.sh bin/orcs testdata/ft64.dot
	bash test/slurm/topology_test.sh bin/orcs

# fuzz: long fuzzing by hand (FUZZTIME per target); commit what it finds.
FUZZTIME ?= 60s
fuzz:
	scripts/fuzz.sh $(FUZZTIME)

bench:
	bench/run.sh

clean:
	rm -rf bin bench/out
