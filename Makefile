# Developer entry points for Coffer. The test suite needs PostgreSQL; `make test`
# starts or creates a local server first, so it works on a fresh machine.

# Overriding PGPORT moves both the server ensure-postgres.sh manages and the URL the
# tests use, so they cannot drift apart.
PGPORT ?= 5432

.PHONY: dev build test lint fmt bench clean-data run-distributed openapi fuzz-api

dev:
	cargo run --release -p coffer -- dev

build:
	cargo build --workspace

test: export COFFER_TEST_POSTGRES_URL ?= postgres://coffer_test@127.0.0.1:$(PGPORT)/coffer_test
# The deployment files and the shape of each crate's imports (scripts/check-imports.py: no
# cycle between a crate's files) are checked first (a minute, and no build); the image
# build steps last, on what the tests built.
test:
	scripts/ensure-postgres.sh >/dev/null
	scripts/check-deployment.sh
	scripts/check-imports.py
	COFFER_TEST_KAFKA_BROKERS="$$(scripts/kafka.sh)" COFFER_TEST_CHECKERS="$$(scripts/checkers.sh)" \
		COFFER_TEST_CHROMIUM="$$(scripts/chromium.sh)" COFFER_TEST_S3="$$(scripts/s3.sh)" \
		COFFER_TEST_SFTP="$$(scripts/sftp.sh)" COFFER_TEST_CAMT_SAMPLES="$$(scripts/testdata.sh)" \
		COFFER_TEST_LOCALSTRIPE="$$(scripts/localstripe.sh)" \
		COFFER_TEST_LOCALSTRIPE_WEBHOOKS="$$(LOCALSTRIPE_PORT=18421 scripts/localstripe.sh)" \
		COFFER_TEST_AXE="$$(scripts/axe.sh)" scripts/test.sh
	scripts/check-images.sh

# Every service binary on PostgreSQL and Kafka behind the nginx gateway (GATEWAY_PORT,
# COFFER_STATE_DIR); stays in the foreground until Ctrl-C.
run-distributed:
	exec scripts/run-distributed.sh

lint:
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings

fmt:
	cargo fmt --all

# Identity's load benchmark on PostgreSQL, with its own server (scripts/bench.sh); the
# payments and billing benchmarks are scripts/bench-payments.sh and scripts/bench-billing.sh.
bench:
	scripts/bench.sh

# Writes the API description the code generates to docs/api/openapi.json, which the tests
# compare with the code (docs/api.md).
openapi:
	cargo run -q -p coffer -- openapi > docs/api/openapi.json

# The hostile-input run of `make test` (schemathesis, services/coffer/tests/api_hostile.rs)
# for 20 minutes with a fresh seed; FUZZ_SECONDS and FUZZ_SEED override both.
fuzz-api: export COFFER_FUZZ_SECONDS ?= $(or $(FUZZ_SECONDS),1200)
fuzz-api: export COFFER_FUZZ_SEED ?= $(or $(FUZZ_SEED),$(shell date +%s))
fuzz-api:
	COFFER_TEST_CHECKERS="$$(scripts/checkers.sh)" scripts/test.sh -p coffer --test api_hostile --no-capture

clean-data:
	rm -rf ./data
