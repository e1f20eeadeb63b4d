# restyplane's entry points. `make run` and `make test` are all a fresh machine needs:
# both call hack/install.sh with their mode, which installs what that target needs and is
# missing (run: nginx and the Lua module only; test: also the test tools) and returns fast
# otherwise.

GO      ?= go
SWAG    ?= bin/swag
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)

# swag reads the general API info from server/doc.go and the handlers' annotations; the
# api package holds the types they name. The spec is written as JSON, which the server
# embeds (openapi/spec.go), and YAML.
SWAG_INIT = $(SWAG) init --quiet -g doc.go -d ./server,./api --parseDependency=false \
	--outputTypes json,yaml

.PHONY: install run test bench openapi openapi-check build image conformance

# install gets everything the tests need; each target below installs only its own needs.
install:
	bash hack/install.sh test

# run compiles restyplane while install.sh installs what running needs, since neither
# waits for the other, and builds it without the Kubernetes reconciler (the nokube tag):
# client-go is more than half of a cold build, and a first run on one machine has no
# cluster. `make build` builds the full binary.
run:
	@$(GO) build -tags nokube -ldflags '$(LDFLAGS)' -o bin/restyplane-nokube ./cmd/restyplane & build=$$!; \
	bash hack/install.sh run || { wait $$build; exit 1; }; \
	wait $$build || exit 1; \
	exec bin/restyplane-nokube serve

# Every test, then bounded runs of two fuzz tests (go test alone runs only their seed
# corpus): no input the API accepts may add a directive to nginx.conf, and no regex
# location it accepts may cost PCRE in a real nginx more than about 1 ms on any path. The bound is a
# count of inputs, not a time: Go 1.26's fuzzer can fail a run whose -fuzztime deadline
# passes while a worker is mid-input ("context deadline exceeded", go.dev/issue/75804,
# fixed in 1.27), as it did in a fresh clone's CI; 30000 inputs take 10 to 30 s here.
test:
	bash hack/install.sh test
	$(GO) vet ./...
	$(GO) vet -tags nokube ./cmd/restyplane
	$(GO) test ./... -count=1 -timeout 30m
	$(GO) test -tags nokube ./cmd/restyplane -count=1
	$(GO) test ./openresty/render -run '^$$' -fuzz '^FuzzRender$$' -fuzztime 30000x
	$(GO) test ./openresty/nginx -run '^$$' -fuzz '^FuzzRegexCost$$' -fuzztime 20000x

# Gateway API's conformance suite (profiles GATEWAY-HTTP and GATEWAY-GRPC), every feature
# restyplane's GatewayClass claims, on a real API server, controller manager, scheduler and
# kwok node (conformance/), once with the CRDs of each of Gateway API's channels (the
# experimental one's HTTPRoute has rules[].retry, and the class claims retries there); each
# run's report is written to conformance/report/<channel>-v1.6.3-default-report.yaml.
# `make test` runs the core tests only.
CONFORMANCE_CHANNELS ?= standard experimental
conformance:
	bash hack/install.sh test
	for ch in $(CONFORMANCE_CHANNELS); do \
		RESTYPLANE_CONFORMANCE=full RESTYPLANE_CONFORMANCE_CHANNEL=$$ch \
		RESTYPLANE_CONFORMANCE_REPORT=conformance/report/$$ch-v1.6.3-default-report.yaml \
		RESTYPLANE_VERSION=$(VERSION) $(GO) test ./conformance -run '^TestConformance$$' -count=1 -timeout 90m -v || exit 1; \
	done

# Each benchmark writes its own section of BENCHMARKS.md (between its markers).
bench:
	bash hack/install.sh bench
	RESTYPLANE_BENCH_OUT=$(CURDIR)/BENCHMARKS.md \
		$(GO) test ./server -run '^$$' -bench '^BenchmarkHistory$$' -benchtime 1x -count 1 -timeout 60m
	RESTYPLANE_BENCH_OUT=$(CURDIR)/BENCHMARKS.md $(GO) test ./store -run '^$$' -bench '^BenchmarkPrune$$' -benchtime 1x -count 1 -timeout 30m
	RESTYPLANE_BENCH_OUT=$(CURDIR)/BENCHMARKS.md $(GO) test ./e2e -run '^$$' -bench '^BenchmarkKubernetes$$' -benchtime 1x -count 1 -timeout 60m
	RESTYPLANE_BENCH_OUT=$(CURDIR)/BENCHMARKS.md $(GO) test ./e2e -run '^$$' -bench '^BenchmarkGatewayAPI$$' -benchtime 1x -count 1 -timeout 60m
	RESTYPLANE_BENCH_OUT=$(CURDIR)/BENCHMARKS.md $(GO) test ./bench -run '^$$' -bench . -benchtime 1x -count 1 -timeout 60m

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o bin/restyplane ./cmd/restyplane

# One image for both roles (restyplane:$(VERSION) and restyplane:latest), built from Debian
# packages without a registry; the root filesystem is cached in .cache/image/.
image:
	bash hack/install.sh image
	bash image/build.sh $(VERSION)

openapi:
	bash hack/install.sh openapi
	$(SWAG_INIT) -o openapi

# openapi-check fails when the committed spec differs from what the annotations generate.
openapi-check:
	bash hack/install.sh openapi
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	$(SWAG_INIT) -o "$$tmp" && \
	if cmp -s openapi/swagger.json "$$tmp/swagger.json" && cmp -s openapi/swagger.yaml "$$tmp/swagger.yaml"; \
	then echo "openapi: up to date"; \
	else for f in swagger.json swagger.yaml; do diff -u "openapi/$$f" "$$tmp/$$f" | head -50; done; \
		echo "openapi/ is stale: run make openapi and commit it" >&2; exit 1; fi
