"""The production configuration: `check --deploy` clean (and refused without a mail server), the mail server read
from the environment as Django's MAILERS, HTTPS-only cookies and HSTS, a strict CSP, no
framing; and the no-configuration defaults (SQLite, eager Celery) for a new user."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROD_ENV = {
    "PRODUCTION": "true",
    "SECRET_KEY": "k" * 20 + "-a-long-random-production-secret-0123456789-abcdefghijkl",
    "ALLOWED_HOSTS": "leaderboard.example.org",
    "EMAIL_HOST": "mail.example.org",  # a production site mails the sign-up's link
}


def _run(args, env_extra, clear=("DEBUG", "CI", "PRODUCTION", "SECRET_KEY")):
    # DJANGO_ALLOW_ASYNC_UNSAFE is set by the browser tests for their own process; a deployment never has it.
    env = {k: v for k, v in os.environ.items() if k not in clear and k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env.update(env_extra)
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def _settings(env_extra, names, clear=("DEBUG", "CI", "PRODUCTION", "SECRET_KEY")):
    code = (
        "import django, json; django.setup(); from django.conf import settings as s; "
        f"print(json.dumps({{n: str(getattr(s, n)) for n in {names!r}}}))"
    )
    result = _run(["-c", code], {"DJANGO_SETTINGS_MODULE": "config.settings", **env_extra}, clear=clear)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def _mailers_of(env: dict[str, str]) -> dict:
    """settings.MAILERS as a fresh process reads it from `env`, with Django's deprecation warnings as errors."""
    code = "import django, json; django.setup(); from django.conf import settings; print(json.dumps(settings.MAILERS))"
    warnings_as_errors = ["-W", "error::django.utils.deprecation.RemovedInDjango2028Warning"]
    mail_env = tuple(k for k in os.environ if k.startswith("EMAIL_"))
    result = _run(
        [*warnings_as_errors, "-c", code],
        {"DJANGO_SETTINGS_MODULE": "config.settings", **env},
        clear=("DEBUG", "CI", "PRODUCTION", "SECRET_KEY", *mail_env),
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_the_mail_server_comes_from_the_environment_as_djangos_mailers():
    # Without EMAIL_HOST the link is printed on the console (`make serve`); with it, SMTP with the environment's
    # port, account, TLS and timeout. Read through MAILERS, so no email setting Django deprecates is defined.
    assert _mailers_of({}) == {"default": {"BACKEND": "django.core.mail.backends.console.EmailBackend"}}
    smtp = _mailers_of(
        {
            "EMAIL_HOST": "mail.example.org",
            "EMAIL_PORT": "2525",
            "EMAIL_HOST_USER": "site",
            "EMAIL_HOST_PASSWORD": "pw",
            "EMAIL_USE_TLS": "false",
            "EMAIL_TIMEOUT": "7",
        }
    )
    assert smtp == {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {
                "host": "mail.example.org",
                "port": 2525,
                "username": "site",
                "password": "pw",
                "use_tls": False,
                "timeout": 7,
            },
        }
    }


def test_check_deploy_is_clean_under_production_settings():
    result = _run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], PROD_ENV)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_check_deploy_refuses_production_without_a_mail_server():
    # Without EMAIL_HOST the sign-up's confirmation link would go to the server's console, where no one signing up
    # reads it: Django's deploy check names the console mailer.
    env = {k: v for k, v in PROD_ENV.items() if k != "EMAIL_HOST"}
    result = _run(
        ["manage.py", "check", "--deploy"], env, clear=("DEBUG", "CI", "PRODUCTION", "SECRET_KEY", "EMAIL_HOST")
    )
    assert result.returncode != 0
    assert "mail.E001" in result.stderr and "console.EmailBackend" in result.stderr


def test_production_settings_use_secure_cookies_hsts_and_https():
    s = _settings(
        PROD_ENV,
        [
            "SESSION_COOKIE_SECURE",
            "CSRF_COOKIE_SECURE",
            "SECURE_HSTS_SECONDS",
            "SECURE_SSL_REDIRECT",
            "DEBUG",
            "X_FRAME_OPTIONS",
        ],
    )
    assert s == {
        "SESSION_COOKIE_SECURE": "True",
        "CSRF_COOKIE_SECURE": "True",
        "SECURE_HSTS_SECONDS": "31536000",
        "SECURE_SSL_REDIRECT": "True",
        "DEBUG": "False",
        "X_FRAME_OPTIONS": "DENY",
    }


def test_production_refuses_to_start_without_a_secret_key():
    env = dict(PROD_ENV)
    env.pop("SECRET_KEY")
    result = _run(["manage.py", "check"], env)
    assert result.returncode != 0
    assert "SECRET_KEY must be set in production" in result.stderr


def test_ci_refuses_to_fall_back_to_sqlite_or_eager_celery():
    result = _run(["manage.py", "check"], {"CI": "true"}, clear=("CI", "DATABASE_URL", "REDIS_URL"))
    assert result.returncode != 0 and "CI=true requires DATABASE_URL" in result.stderr
    result = _run(
        ["manage.py", "check"],
        {"CI": "true", "DATABASE_URL": "postgres://postgres@127.0.0.1/x"},
        clear=("CI", "REDIS_URL"),
    )
    assert result.returncode != 0 and "CI=true requires REDIS_URL" in result.stderr


def test_no_configuration_means_sqlite_eager_celery_and_a_file_cache_under_var(tmp_path):
    s = _settings(
        {"VAR_DIR": str(tmp_path)},
        ["DATABASES", "CELERY_TASK_ALWAYS_EAGER", "CACHES"],
        clear=("CI", "DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL"),
    )
    assert "sqlite3" in s["DATABASES"] and str(tmp_path) in s["DATABASES"]
    assert s["CELERY_TASK_ALWAYS_EAGER"] == "True"
    # A file cache under VAR_DIR, which every process on the machine shares (a per-process memory cache kept
    # a server's board pages stale after an import run beside it).
    assert "FileBasedCache" in s["CACHES"] and str(tmp_path / "cache") in s["CACHES"]
    assert "LocMemCache" not in s["CACHES"]


def test_database_url_can_name_another_sqlite_file(tmp_path):
    s = _settings({"DATABASE_URL": f"sqlite:///{tmp_path}/other.db"}, ["DATABASES"])
    assert f"{tmp_path}/other.db" in s["DATABASES"]


@pytest.mark.django_db
def test_pages_carry_a_strict_csp_and_refuse_framing(client):
    response = client.get("/admin/login/")
    assert response["X-Frame-Options"] == "DENY"
    response = client.get("/")
    csp = response["Content-Security-Policy"]
    assert "script-src 'self';" in csp and "unsafe-inline" not in csp
    assert "frame-ancestors 'none'" in csp
    assert response["X-Content-Type-Options"] == "nosniff"


@pytest.mark.django_db
def test_the_admin_gets_its_inline_styles_and_still_no_inline_script(client):
    csp = client.get("/admin/login/")["Content-Security-Policy"]
    assert "style-src 'self' 'unsafe-inline'" in csp and "script-src 'self';" in csp
    assert "frame-ancestors 'none'" in csp
    assert "unsafe-inline" not in client.get("/")["Content-Security-Policy"]


@pytest.mark.parametrize("env", [{"DEBUG": "true"}, PROD_ENV], ids=["debug", "production"])
def test_under_media_the_site_serves_only_evidence_through_its_own_view(env):
    # The front web server never serves MEDIA_ROOT (README, "Running it in production"): with DEBUG (`make
    # serve`) or without, /media/evidence/ goes to the view that checks the run and serves the file inert
    # (tests/security/test_evidence_files.py), and nothing else there resolves, so an app build is never
    # reachable under /media/.
    code = (
        "import django; django.setup(); from django.urls import resolve, Resolver404\n"
        "for path in ('/media/app-builds/0123abcd/index.html', '/media/evidence/2026/12/shot.svg', '/media/'):\n"
        "    try:\n"
        "        print('served', path, resolve(path).func.__name__)\n"
        "    except Resolver404:\n"
        "        print('not served', path)\n"
    )
    result = _run(["-c", code], {"DJANGO_SETTINGS_MODULE": "config.settings", **env})
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:3] == [
        "not served /media/app-builds/0123abcd/index.html",
        "served /media/evidence/2026/12/shot.svg evidence_file",
        "not served /media/",
    ]


def test_cookies_are_same_site_lax_and_the_session_cookie_is_http_only_in_production():
    names = ["SESSION_COOKIE_SAMESITE", "CSRF_COOKIE_SAMESITE", "SESSION_COOKIE_HTTPONLY"]
    expected = {"SESSION_COOKIE_SAMESITE": "Lax", "CSRF_COOKIE_SAMESITE": "Lax", "SESSION_COOKIE_HTTPONLY": "True"}
    assert _settings(PROD_ENV, names) == expected
    assert _settings({}, names) == expected


@pytest.mark.django_db
def test_signing_in_sets_a_session_cookie_scripts_cannot_read_and_other_sites_cannot_send(client):
    # What the browser is told: the session cookie is HttpOnly (a script of the page, or of an app build, cannot
    # read it) and SameSite=Lax like the CSRF cookie (a form posted from another site goes without them).
    from tests.builders.voting import make_user

    make_user("cookie@example.com", password="a-long-password-9")
    form = client.get("/signin/")
    csrf = form.cookies["csrftoken"]
    assert csrf["samesite"] == "Lax"
    response = client.post(
        "/signin/",
        {"username": "cookie@example.com", "password": "a-long-password-9", "csrfmiddlewaretoken": csrf.value},
    )
    assert response.status_code == 302
    session = response.cookies["sessionid"]
    assert session.value and session["httponly"] is True and session["samesite"] == "Lax"
    header = session.output(header="").strip().lower()
    assert "httponly" in header and "samesite=lax" in header


@pytest.mark.parametrize(
    "env, says",
    [
        ({**PROD_ENV, "SECRET_KEY": "short-but-set"}, "SECRET_KEY is too weak"),
        ({**PROD_ENV, "SECRET_KEY": "ab" * 40}, "SECRET_KEY is too weak"),  # 80 characters, 2 different ones
        ({**PROD_ENV, "SECRET_KEY": ""}, "SECRET_KEY must be set"),
        ({**PROD_ENV, "DEBUG": "true"}, "DEBUG must be off in production"),
        # DEBUG with no key used to fall back to the public development key, with secure cookies and HSTS off.
        ({"PRODUCTION": "true", "DEBUG": "true", "ALLOWED_HOSTS": "leaderboard.example.org"}, "DEBUG must be off"),
    ],
)
def test_production_refuses_to_start_with_a_weak_key_or_debug_on(env, says):
    # As an operator would start it: `check --deploy` exits non-zero, naming what to fix, and nothing is served.
    result = _run(["manage.py", "check", "--deploy"], env)
    assert result.returncode != 0
    assert says in result.stderr
    assert "local-only-insecure-key" not in result.stdout + result.stderr
