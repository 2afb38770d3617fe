from django.conf import settings
from django.utils.functional import SimpleLazyObject

from leaderboard.roles import user_organization


def site(request):
    # Lazy: only a signed-in visitor's navigation asks whether they are a vendor (one query, then cached).
    user = getattr(request, "user", None)
    return {
        "SITE_NAME": settings.SITE_NAME,
        "IS_VENDOR": SimpleLazyObject(lambda: user is not None and user_organization(user) is not None),
    }
