from django.conf import settings

from leaderboard.groups import VENDORS
from leaderboard.roles import user_groups


def site(request):
    """What every page's frame needs: the site's name, and whether the signed-in person is a vendor (the
    navigation then offers their preview of rounds before publication)."""
    user = getattr(request, "user", None)
    vendor = bool(user is not None and user.is_authenticated and VENDORS in user_groups(user))
    return {"SITE_NAME": settings.SITE_NAME, "is_vendor": vendor}
