# scale.mk — the hollow-kubelet scale benchmark (docs/scale.md),
# included by the Makefile.
#
#   make scale-bench         110..2,000 pods on one hollow node @1 s and @10 s, then
#                            10 x 250 pods on ten; stock vs probewheel, 3 ABBA rounds
#                            -> bench/hollow/results/hollow-<UTC date>/ (~5-6 h on 2 cores; needs root)
#   make scale-bench-reduced 250, 1,000 and 2,000 pods on one hollow node @1 s, 2 ABBA
#                            rounds, short windows -> bench/hollow/results/hollow-reduced-<UTC date>/
#                            (~40-50 min on 2 cores; needs root)
#   make scale-bench-smoke   110/500/1,000 pods @1 s and 3 x 200 @10 s, one round, short
#                            windows -> _output/scale/smoke-<UTC date>/ (~25-35 min)
#   make scale-bench-nodes   only the many-nodes workload
#   make flip-campaign       readiness flips at 1,000 pods @10 s, every pod failing 10
#                            times in an 18-min window: 20,000 due flips per kubelet,
#                            extra and lost ones counted -> bench/hollow/results/hollow-flips-<UTC date>/
#                            (~40-45 min; SCALE_PERIODS=1 SCALE_FLIP_SPANS=100 for 1 s periods)
#   SCALE_STOP_BY=<time> / SCALE_RESUME=<results dir> make scale-bench
#                            the full run in parts: stop before a round that would end
#                            after <time>, resume later with the knobs it started with
#   make hollow-node         _output/bin/hollow-node and hollow-node-stock
#   make scale-test          vet and unit tests of bench/hollow/pwscale (part of make test)
#
# Knobs: hack/scale-bench.sh's SCALE_* variables (SCALE_PODS, SCALE_PERIODS,
# SCALE_HANDLERS, SCALE_EXEC_LATENCY, SCALE_MANY, SCALE_ROUNDS, SCALE_WINDOW,
# SCALE_SETTLE, SCALE_READY_TIMEOUT, ...; lists separated by spaces or commas).

.PHONY: scale-bench scale-bench-reduced scale-bench-smoke scale-bench-nodes flip-campaign hollow-node scale-test

scale-bench:
	hack/scale-bench.sh full

scale-bench-reduced:
	hack/scale-bench.sh reduced

scale-bench-smoke:
	hack/scale-bench.sh smoke

scale-bench-nodes:
	hack/scale-bench.sh nodes

flip-campaign:
	hack/scale-bench.sh flips

hollow-node:
	hack/build-hollow-node.sh --stock
	hack/build-hollow-node.sh

# The harness's own checks (make test runs them); the benchmark itself on demand.
scale-test:
	$(GO) vet ./bench/hollow/...
	$(GO) test -count=1 ./bench/hollow/...
	bench/hollow/status-lag_test.sh
