# utilities/: operator tools and scripts.
EXTRA_DIST += \
	utilities/install-deps.sh \
	utilities/sandbox.sh \
	utilities/check.sh
