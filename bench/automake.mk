# bench/: workload generators and the side-by-side northd benchmark (see
# docs/performance.md).  Not built; tests/bench.at runs a tiny smoke run.
EXTRA_DIST += \
	bench/gen.py \
	bench/gen_routers.py \
	bench/ovsdbrpc.py \
	bench/run.py \
	bench/check.py \
	bench/nbctl-bench.sh
