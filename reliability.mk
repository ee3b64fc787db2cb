# Reliability under churn, faults and a slow kubelet (docs/reliability.md).
# Included from the Makefile.
#
#   make reliability-short  the short forms, with -race (part of make test)
#   make soak               churn soak: 10,000 pods, an hour of synctest time, every implementation
#   make soak-real          churn soak: 10,000 pods, ten minutes of real time (IMPLS=probewheel)
#   make slow-kubelet       nobody reads Updates() for 3 minutes, 10,000 pods, real time, every implementation
#   make slow-kubelet-sim   the same in synctest time
#   make fuzz-diff          differential sweep of DIFF_SWEEP sequences, then FUZZTIME_DIFF of go test -fuzz
#
# Each full target prints its figures and writes <name>.{json,md} to RELIABILITY_OUT.
# IMPLS=a,b picks implementations of bench.Impls; PODS, PERIOD, WAVES, WAVE, STALL
# override the workload (see bench/reliability/reliability_test.go).

# One folder per make invocation, named like every results folder: reliability-<UTC date>-<time>.
ifndef RELIABILITY_OUT
RELIABILITY_OUT := $(CURDIR)/bench/results/reliability-$(shell date -u +%Y%m%d-%H%M%S)
endif
# Logs stay out of the tree, beside the build: _output/reliability-logs/<results folder>/.
RELIABILITY_LOGS = $(CURDIR)/_output/reliability-logs/$(notdir $(RELIABILITY_OUT))
DIFF_SWEEP      ?= 10000
FUZZTIME_DIFF   ?= 5m

RELIABILITY_ENV = PROBEWHEEL_RELIABILITY_OUT=$(RELIABILITY_OUT) \
	$(if $(IMPLS),PROBEWHEEL_IMPLS=$(IMPLS)) $(if $(PODS),PROBEWHEEL_PODS=$(PODS)) \
	$(if $(PERIOD),PROBEWHEEL_PERIOD=$(PERIOD)) $(if $(WAVES),PROBEWHEEL_WAVES=$(WAVES)) \
	$(if $(WAVE),PROBEWHEEL_WAVE=$(WAVE)) $(if $(STALL),PROBEWHEEL_STALL=$(STALL))

# Appends what a result depends on to $(RELIABILITY_OUT)/runs.txt: target, commit, whether
# pkg/ differs from it, the main line's patch set (the sum release records and hollow runs name;
# make test keeps patches/ in step with pkg/), machine and load (real-time figures swing with
# the load of a shared host).
define reliability_note
	@mkdir -p $(RELIABILITY_OUT)
	@echo "$$(date -u +%FT%TZ) make $@: $$(bash -c 'source hack/lib.sh && pw::run_stamp pkg'), $$(nproc) CPUs, $$($(GO) env GOVERSION), load $$(cut -d' ' -f1-3 /proc/loadavg)" >> $(RELIABILITY_OUT)/runs.txt
endef

.PHONY: reliability reliability-short soak soak-real slow-kubelet slow-kubelet-sim fuzz-diff

## reliability-short: the soak and slow-kubelet short forms in synctest, with -race, then the
## slow kubelet at its full short size without it (see slowShortRacePods) (~15-40 s);
## the differential fuzzer's fixed seeds run with bench/parity in make unit
reliability-short:
	$(GO) test -race -count=1 ./bench/reliability/
	$(GO) test -count=1 -run '^TestSlowKubelet$$' ./bench/reliability/

## reliability: every long reliability run, one after the other (40 min on 2 cores: soak 3.5, soak-real 10.5, slow-kubelet 17.5, fuzz-diff 8)
reliability: soak soak-real slow-kubelet fuzz-diff

soak:
	$(reliability_note)
	$(RELIABILITY_ENV) PROBEWHEEL_SOAK=sim $(GO) test -count=1 -timeout 0 -v -run '^TestSoak$$' ./bench/reliability/

soak-real:
	$(reliability_note)
	$(RELIABILITY_ENV) PROBEWHEEL_SOAK=real $(GO) test -count=1 -timeout 0 -v -run '^TestSoak$$' ./bench/reliability/

slow-kubelet:
	$(reliability_note)
	$(RELIABILITY_ENV) PROBEWHEEL_SLOW=real $(GO) test -count=1 -timeout 0 -v -run '^TestSlowKubelet$$' ./bench/reliability/

slow-kubelet-sim:
	$(reliability_note)
	$(RELIABILITY_ENV) PROBEWHEEL_SLOW=sim $(GO) test -count=1 -timeout 0 -v -run '^TestSlowKubelet$$' ./bench/reliability/

# The sweep is seeded (reproducible) and writes differential.{json,md}; the fuzzer
# then explores from the seeds and testdata/fuzz/FuzzDifferential, saves any
# failing input there, and its progress lines (execs, coverage) to fuzz-diff.log
# in RELIABILITY_LOGS; fuzz.txt in the results says what it ran and its last line.
FUZZ_DIFF_CMD = $(GO) test -run '^$$' -fuzz '^FuzzDifferential$$' -fuzztime $(FUZZTIME_DIFF) ./bench/parity/
## oracle-diff: probewheel against its contract, the oracle (bench/oracle: upstream's prober with
## every run on the next tick), exactly, over ORACLE_SWEEP of the differential sweep's sequences
## (~3 min for 20,000 on 2 cores), then ORACLE_LIMIT_SWEEP sequences with the exec limit binding;
## every difference fails it. Writes oracle-diff.txt to RELIABILITY_OUT
ORACLE_SWEEP ?= 60000
# ...then ORACLE_LIMIT_SWEEP overload sequences with the exec limit binding, each wait replayed
# into the oracle's runner (bench/parity/oracle_limit_test.go; ~7 min for 2,000 on 2 cores)
ORACLE_LIMIT_SWEEP ?= 2000
.PHONY: oracle-diff
oracle-diff:
	$(reliability_note)
	@echo "command: make oracle-diff (ORACLE_SWEEP $(ORACLE_SWEEP), ORACLE_LIMIT_SWEEP $(ORACLE_LIMIT_SWEEP)), $$(bash -c 'source hack/lib.sh && pw::run_stamp pkg'), started $$(date -u +%FT%TZ)" > $(RELIABILITY_OUT)/oracle-diff.txt
	set -o pipefail; PROBEWHEEL_ORACLE_SWEEP=$(ORACLE_SWEEP) \
	  $(GO) test -count=1 -timeout 0 -v -run '^TestOracleSweep$$' ./bench/parity/ | grep -v -e '^=== ' -e 'make a ref' \
	  | tee -a $(RELIABILITY_OUT)/oracle-diff.txt
	set -o pipefail; PROBEWHEEL_ORACLE_LIMIT_SWEEP=$(ORACLE_LIMIT_SWEEP) \
	  $(GO) test -count=1 -timeout 0 -v -run '^TestOracleLimitSweep$$' ./bench/parity/ | grep -v -e '^=== ' \
	  | tee -a $(RELIABILITY_OUT)/oracle-diff.txt

fuzz-diff:
	$(reliability_note)
	set -o pipefail; PROBEWHEEL_DIFF_SWEEP=$(DIFF_SWEEP) PROBEWHEEL_DIFF_OUT=$(RELIABILITY_OUT) \
	  $(GO) test -count=1 -timeout 0 -v -run '^TestDifferentialSweep$$' ./bench/parity/ | grep -v -e '^=== ' -e '^    --- PASS'
	@mkdir -p $(RELIABILITY_LOGS)
	set -o pipefail; $(FUZZ_DIFF_CMD) 2>&1 | tee $(RELIABILITY_LOGS)/fuzz-diff.log
	{ echo "command: $(FUZZ_DIFF_CMD)"; \
	  echo "log: $(patsubst $(CURDIR)/%,%,$(RELIABILITY_LOGS))/fuzz-diff.log (not in git; the command makes one again)"; \
	  grep '^fuzz: elapsed' $(RELIABILITY_LOGS)/fuzz-diff.log | tail -n1; tail -n2 $(RELIABILITY_LOGS)/fuzz-diff.log; } \
	  > $(RELIABILITY_OUT)/fuzz.txt
