# The two commands (see README): `make serve` and `make test`.
PYTHON ?= python3.12
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# The test suite runs on the production path: PostgreSQL, Redis and a real Celery worker.
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/leaderboard
TEST_REDIS_URL ?= redis://127.0.0.1:6379/1
TEST_BROKER_URL ?= redis://127.0.0.1:6379/2

.PHONY: serve test install chromium demo lint

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev,inspect]'
	touch $(STAMP)

install: $(STAMP)

# Debian's Chromium drives the browser tests (Playwright never downloads a browser here).
chromium:
	@test -x /usr/bin/chromium || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium)

demo: $(STAMP)
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_demo

serve: demo
	@mkdir -p var; if [ -n "$$REDIS_URL" ]; then \
	  $(VENV)/bin/celery -A leaderboard worker --beat --schedule var/celerybeat-schedule --loglevel=WARNING --concurrency=2 & \
	  trap "kill $$!" EXIT; \
	fi; \
	DEBUG=$${DEBUG:-true} $(PY) manage.py runserver 127.0.0.1:8000

# TEST_RUN_ID (default: this shell's process id) gives the run its own test database, cache keys and Celery
# queue, so two test runs on one machine never wipe each other.
test: $(STAMP) chromium
	TEST_RUN_ID=$${TEST_RUN_ID:-$$$$} DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} REDIS_URL=$${REDIS_URL:-$(TEST_REDIS_URL)} \
	CELERY_BROKER_URL=$${CELERY_BROKER_URL:-$(TEST_BROKER_URL)} \
	$(VENV)/bin/pytest $(PYTEST_ARGS)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
