"""Settings, read from the environment in one place.

With no configuration the site runs on SQLite with Celery tasks run eagerly and a file cache under VAR_DIR
(shared by every process on the machine), so a new user needs no server. `DATABASE_URL` and `REDIS_URL` switch
to PostgreSQL, Redis and real Celery workers. `CI=true` insists on both and fails loudly rather than fall back.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

from config.env import database_from_url, env_bool, env_int, env_list, env_str, file_storages, mailers

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("VAR_DIR", str(BASE_DIR / "var")))

CI = env_bool("CI", False)
DEBUG = env_bool("DEBUG", False)
PRODUCTION = env_bool("PRODUCTION", False)
TESTING = "pytest" in sys.modules or env_bool("TESTING", False)

SECRET_KEY = env_str("SECRET_KEY")
if PRODUCTION:
    # Production never falls back: not to debug pages (which also drop secure cookies and HSTS below), not to
    # the public development key, not to a key short or plain enough to guess (Django's own deploy check's
    # bar: 50 characters, 5 different ones, not a generated "django-insecure-" key).
    if DEBUG:
        raise ImproperlyConfigured("DEBUG must be off in production: unset DEBUG or set PRODUCTION=false")
    if not SECRET_KEY:
        raise ImproperlyConfigured("SECRET_KEY must be set in production")
    if len(SECRET_KEY) < 50 or len(set(SECRET_KEY)) < 5 or SECRET_KEY.startswith("django-insecure-"):
        raise ImproperlyConfigured(
            "SECRET_KEY is too weak for production: use at least 50 random characters "
            '(python -c "import secrets; print(secrets.token_urlsafe(50))")'
        )
if not SECRET_KEY:
    SECRET_KEY = "local-only-insecure-key-set-SECRET_KEY-in-production-0123456789abcdefghijkl"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django_htmx",
    "leaderboard",
    "runs",
    "voting",
    "snapshots.apps.SnapshotsConfig",
    "bundles.apps.BundlesConfig",
    "submissions.apps.SubmissionsConfig",
    "pages.apps.PagesConfig",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "config.middleware.AdminStylesCSPMiddleware",
    "config.middleware.RejectNulMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

# Django's cached_db sessions: kept in the database and read through the cache (Redis when REDIS_URL is set),
# so a signed-in request reads its session from the cache, and the database only when the cache has lost it or
# cannot be reached (config/sessions.py). Accounts are read by Django's own ModelBackend (the default
# AUTHENTICATION_BACKENDS).
SESSION_ENGINE = "config.sessions"

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "config.context_processors.site",
            ],
        },
    },
    {
        # The vote screen's stage and reveal bar (`voting/jinja2/`): rendered on every vote, in Jinja2 for speed
        # (config/jinja2.py). Django's templates come first: every other name is theirs.
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "APP_DIRS": True,
        "OPTIONS": {"environment": "config.jinja2.environment"},
    },
]

# --- database -----------------------------------------------------------------------------------------------
DATABASE_URL = env_str("DATABASE_URL")
if CI and not DATABASE_URL.startswith(("postgres://", "postgresql://")):
    raise ImproperlyConfigured("CI=true requires DATABASE_URL=postgres://... (no silent SQLite fallback)")
if DATABASE_URL:
    DATABASES = {"default": database_from_url(DATABASE_URL, BASE_DIR)}
else:
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(VAR_DIR / "db.sqlite3"),
            "OPTIONS": {"transaction_mode": "IMMEDIATE", "timeout": 20},
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# A test run's own namespace (`make test` sets TEST_RUN_ID to its process id; pytest-xdist adds its worker):
# two runs on one machine never share a test database, cache keys, rate-limit windows or a Celery queue.
TEST_RUN_ID = env_str("TEST_RUN_ID")
RUN_NAMESPACE = "-".join(x for x in (TEST_RUN_ID, os.environ.get("PYTEST_XDIST_WORKER", "")) if x)
if TEST_RUN_ID and DATABASES["default"]["ENGINE"].endswith("postgresql"):
    DATABASES["default"]["TEST"] = {"NAME": f"test_{DATABASES['default']['NAME']}_{TEST_RUN_ID}"}

# --- Redis, cache and Celery -------------------------------------------------------------------------------
REDIS_URL = env_str("REDIS_URL")
if CI and not REDIS_URL:
    raise ImproperlyConfigured("CI=true requires REDIS_URL=redis://... (no silent eager-Celery fallback)")

if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "config.redis_cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": env_str("CACHE_KEY_PREFIX", "lb") + (f"-{RUN_NAMESPACE}" if RUN_NAMESPACE else ""),
            "TIMEOUT": 300,
        }
    }
    CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", REDIS_URL)
    CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
else:
    # Django's file cache under VAR_DIR, not a per-process memory: the site, a second server process and a command
    # run beside them (an import, a recount, a publication) share it, so the write that retires a board's cached
    # pages (leaderboard/caching.py), a rate-limit window (leaderboard/ratelimit.py), a signed-out session and
    # the vote pool are seen by every process on the machine, as Redis makes them seen by every server.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(VAR_DIR / "cache" / (RUN_NAMESPACE or ("tests" if TESTING else "site"))),
            "KEY_PREFIX": "lb",
            "TIMEOUT": 300,
            # Pages, rate-limit logs, sessions and version keys; past this a third of the files are dropped.
            "OPTIONS": {"MAX_ENTRIES": 3000},
        }
    }
    # Kombu's in-memory transport, named with its host: "memory://" alone made kombu warn "No hostname was
    # supplied. Reverting to default 'localhost'" on every command that sends a task.
    CELERY_BROKER_URL = "memory://localhost/"
    CELERY_TASK_ALWAYS_EAGER = True

CELERY_TASK_DEFAULT_QUEUE = "celery" + (f"-{RUN_NAMESPACE}" if RUN_NAMESPACE else "")
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A publish to a broker that is down must fail fast: the database write has already committed and the
# periodic sweep recomputes anything left stale.
# With acks_late, a task whose worker died is handed out again after the visibility timeout (Redis broker):
# ten minutes, well above the longest recompute, instead of Redis's default hour.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.5,
    "socket_connect_timeout": 1,
    "socket_timeout": 2,
    "visibility_timeout": 600,
}
CELERY_TASK_PUBLISH_RETRY = False
STALE_SWEEP_SECONDS = env_int("STALE_SWEEP_SECONDS", 60)
CELERY_BEAT_SCHEDULE = {
    "sweep-stale-snapshots": {"task": "snapshots.tasks.sweep_stale", "schedule": float(STALE_SWEEP_SECONDS)},
}

# --- auth, sessions, security ------------------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "signin"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

SECURE = env_bool("SECURE", not DEBUG and PRODUCTION)
SESSION_COOKIE_SECURE = SECURE
CSRF_COOKIE_SECURE = SECURE
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
# A form sent without its token is answered with a page of the site saying why (pages.refusals).
CSRF_FAILURE_VIEW = "pages.refusals.csrf_failure"
SECURE_SSL_REDIRECT = SECURE and env_bool("SECURE_SSL_REDIRECT", True)
# Behind one trusted reverse proxy: it sets X-Forwarded-Proto and appends the client's address to
# X-Forwarded-For (leaderboard.clients.client_address reads only that last hop).
BEHIND_PROXY = env_bool("BEHIND_PROXY", False)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if BEHIND_PROXY else None
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000) if SECURE else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE
SECURE_HSTS_PRELOAD = SECURE
SECURE_CONTENT_TYPE_NOSNIFF = True
# Django's own Content-Security-Policy middleware: scripts only from this site, no inline script, nothing
# frames the site. The vote screen widens frame-src for the sandboxed previews (`csp_override` on its views);
# the admin gets its inline styles back (config.middleware.AdminStylesCSPMiddleware).
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:", "https:"],
    "font-src": [CSP.SELF],
    "connect-src": [CSP.SELF],
    "frame-src": [CSP.NONE],
    "frame-ancestors": [CSP.NONE],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "form-action": [CSP.SELF],
}
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("DATA_UPLOAD_MAX_MEMORY_SIZE", 2_621_440)

# --- i18n, static, media -----------------------------------------------------------------------------------
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(BASE_DIR / "staticfiles")))
STATICFILES_DIRS = [BASE_DIR / "static"]
MEDIA_URL = "/media/"
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(VAR_DIR / "media")))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
# Serve from the app folders until `collectstatic` has filled STATIC_ROOT (development, tests, demo).
WHITENOISE_USE_FINDERS = DEBUG or TESTING or not any(STATIC_ROOT.iterdir())
# Every stored file goes through one of the named storages: "evidence" (names under "evidence/"), "app_builds"
# (under "app-builds/<random>/"), "transcripts" (under "transcripts/": compressed pages read by the run page),
# "submissions" (under "submissions/": each submission from an outside team as it was sent, never served).
# The local disk under MEDIA_ROOT by default; with STORAGE_URL (s3://bucket?endpoint_url=...&region_name=...)
# S3-compatible object storage through django-storages, shared by every app server and worker (README,
# "Running it in production"). The site serves every file itself, by its rules: the bucket stays private.
STORAGE_URL = env_str("STORAGE_URL")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    **file_storages(STORAGE_URL),
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# --- the product ---------------------------------------------------------------------------------------------
SITE_NAME = env_str("SITE_NAME", "Agent Leaderboard")
PREVIEW_HOURS = env_int("PREVIEW_HOURS", 48)
VOTE_RATE_LIMIT = env_int("VOTE_RATE_LIMIT", 30)
VOTE_RATE_WINDOW_SECONDS = env_int("VOTE_RATE_WINDOW_SECONDS", 600)
ACCOUNT_RATE_LIMIT = env_int("ACCOUNT_RATE_LIMIT", 20)  # sign-in and sign-up attempts per address per window
VOTE_NEW_ACCOUNT_DELAY_HOURS = env_int("VOTE_NEW_ACCOUNT_DELAY_HOURS", 24)
ACCOUNT_CONFIRM_DAYS = env_int("ACCOUNT_CONFIRM_DAYS", 3)  # how long the link mailed at sign-up works
# Mail (the sign-up's confirmation link), as Django's MAILERS: SMTP when EMAIL_HOST is set (production), else
# printed on the console (`make serve`). Tests use Django's in-memory outbox. The environment keeps the usual names
# (EMAIL_HOST, EMAIL_PORT, EMAIL_HOST_USER, EMAIL_HOST_PASSWORD, EMAIL_USE_TLS, EMAIL_TIMEOUT).
# Seconds to wait for the mail server: sign-up sends the link inside the transaction that stores the account
# (nothing stored when it cannot be sent), so a server that hangs must not hold it for long.
MAIL_SERVER_TIMEOUT = env_int("EMAIL_TIMEOUT", 10)
MAILERS = mailers(
    host=env_str("EMAIL_HOST", ""),
    port=env_int("EMAIL_PORT", 587),
    username=env_str("EMAIL_HOST_USER", ""),
    password=env_str("EMAIL_HOST_PASSWORD", ""),
    use_tls=env_bool("EMAIL_USE_TLS", True),
    timeout=MAIL_SERVER_TIMEOUT,
)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "leaderboard@localhost")
VOTE_DAILY_CAP = env_int("VOTE_DAILY_CAP", 200)
VOTE_ALIAS_TTL_SECONDS = env_int("VOTE_ALIAS_TTL_SECONDS", 1800)
# How long a voter's vote screen is kept for a reload (voting/views/screen_cache.py); 0 keeps none. A kept screen is
# retired when the write that changes it commits, which never happens inside a test's transaction: the tests keep
# none unless they ask for it (tests/voting/test_vote_screen_cache.py, with the commit callbacks run).
VOTE_SCREEN_CACHE_SECONDS = env_int("VOTE_SCREEN_CACHE_SECONDS", 0 if TESTING else 30)
VOTE_DRAW_RATE_LIMIT = env_int("VOTE_DRAW_RATE_LIMIT", 120)  # new matchups per account per rate window
VOTE_FLAG_MIN_VOTES = env_int("VOTE_FLAG_MIN_VOTES", 30)  # non-tie votes before a voter can be flagged
VOTE_FLAG_P_VALUE = float(env_str("VOTE_FLAG_P_VALUE", "0.001"))
# Above this many public votes the bundle download refers to the streamed votes file instead of inlining them.
VOTES_INLINE_LIMIT = env_int("VOTES_INLINE_LIMIT", 100_000)
# App builds shown live on the vote screen: their size limits, and an optional separate origin to serve them
# from (e.g. https://apps.example.net, pointing at this same site); blank serves them from this site. A system
# check (voting/checks.py) refuses a PREVIEW_ORIGIN that cannot work: not an origin, a host not in
# ALLOWED_HOSTS, the site's own host, or no site origin in CSRF_TRUSTED_ORIGINS to frame the apps.
APP_BUILD_MAX_BYTES = env_int("APP_BUILD_MAX_BYTES", 5_000_000)
APP_BUILD_MAX_FILES = env_int("APP_BUILD_MAX_FILES", 300)
# The largest evidence file a bundle may carry next to it (`{"kind": "screenshot", "path": ...}`).
EVIDENCE_FILE_MAX_BYTES = env_int("EVIDENCE_FILE_MAX_BYTES", 20_000_000)
# A run's transcript (docs/transcripts.md): at most this many bytes of JSON per sample, and all the transcripts
# of one import or upload together; over either the import is refused whole, nothing written.
TRANSCRIPT_MAX_BYTES = env_int("TRANSCRIPT_MAX_BYTES", 64_000_000)
TRANSCRIPT_UPLOAD_MAX_BYTES = env_int("TRANSCRIPT_UPLOAD_MAX_BYTES", 512_000_000)
# Messages per stored page of a transcript: a run page reads one page at a time.
TRANSCRIPT_PAGE_SIZE = env_int("TRANSCRIPT_PAGE_SIZE", 100)
PREVIEW_ORIGIN = env_str("PREVIEW_ORIGIN", "").rstrip("/")
CELERY_BEAT_SCHEDULE["votes-housekeeping"] = {"task": "voting.tasks.votes_housekeeping", "schedule": 300.0}
CELERY_BEAT_SCHEDULE["voters-flag"] = {"task": "voting.tasks.voters_flag_all", "schedule": 3600.0}
API_RATE_LIMIT = env_int("API_RATE_LIMIT", 600)
API_RATE_WINDOW_SECONDS = env_int("API_RATE_WINDOW_SECONDS", 60)
# The upload API: uploads per key per window, and the largest request body it reads.
API_UPLOAD_RATE_LIMIT = env_int("API_UPLOAD_RATE_LIMIT", 60)
API_UPLOAD_RATE_WINDOW_SECONDS = env_int("API_UPLOAD_RATE_WINDOW_SECONDS", 3600)
API_UPLOAD_MAX_BYTES = env_int("API_UPLOAD_MAX_BYTES", 50 * 1024 * 1024)
# Inspect logs (upload API, import_inspect, the admin's import page): what a log may inflate to in all and in one
# entry of its zip, counted as it is inflated before Inspect reads it (reading takes about 2-3 times as much memory).
INSPECT_LOG_MAX_BYTES = env_int("INSPECT_LOG_MAX_BYTES", 200_000_000)
INSPECT_LOG_MAX_ENTRY_BYTES = env_int("INSPECT_LOG_MAX_ENTRY_BYTES", 50_000_000)
# A τ² submission's zip (site, API, import_submission): what it may inflate to in all, counted as it inflates.
SUBMISSION_MAX_BYTES = env_int("SUBMISSION_MAX_BYTES", 200_000_000)
# What a submission's JSON files may hold in all, counted before any is parsed (a value: an item of an array or
# object; τ²-bench's real files hold about 350 per simulation) and how deep they may nest.
SUBMISSION_MAX_JSON_VALUES = env_int("SUBMISSION_MAX_JSON_VALUES", 1_500_000)
SUBMISSION_MAX_JSON_DEPTH = env_int("SUBMISSION_MAX_JSON_DEPTH", 64)
# Submissions (the upload form and the API) per account or API key, and per organization, per window.
SUBMISSION_RATE_LIMIT = env_int("SUBMISSION_RATE_LIMIT", 10)
SUBMISSION_ORG_RATE_LIMIT = env_int("SUBMISSION_ORG_RATE_LIMIT", 30)
SUBMISSION_RATE_WINDOW_SECONDS = env_int("SUBMISSION_RATE_WINDOW_SECONDS", 3600)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "WARNING")},
}
