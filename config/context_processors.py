from functools import cache

from django.conf import settings
from django.urls import NoReverseMatch, get_script_prefix, get_urlconf, reverse
from django.utils.functional import SimpleLazyObject

from leaderboard.roles import user_organization

# The navigation's addresses (templates/base.html), by URL name: the same on every page, so reversed once per
# process, script prefix and URL configuration (a reverse costs about as much as the rest of the header).
NAV_NAMES = ("home", "vote", "signin", "signup", "signout", "preview_index", "admin:index")


@cache
def _nav(prefix: str, urlconf: str | None) -> dict[str, str]:
    urls = {}
    for name in NAV_NAMES:
        try:
            urls[name.replace("admin:", "admin_")] = reverse(name, urlconf=urlconf)
        except NoReverseMatch:  # a URL configuration without it (a test's): the link is left out
            urls[name.replace("admin:", "admin_")] = ""
    return urls


def nav_urls() -> dict[str, str]:
    return _nav(get_script_prefix(), get_urlconf() or settings.ROOT_URLCONF)


def site(request):
    # Lazy: only a signed-in visitor's navigation asks whether they are a vendor (one query, then cached).
    user = getattr(request, "user", None)
    return {
        "SITE_NAME": settings.SITE_NAME,
        "IS_VENDOR": SimpleLazyObject(lambda: user is not None and user_organization(user) is not None),
        "NAV": nav_urls(),
    }
