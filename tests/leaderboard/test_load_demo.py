import io

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def test_the_demo_accounts_sign_in_on_the_site_and_in_the_admin(client):
    call_command("load_demo", stdout=io.StringIO())
    response = client.post("/signin/", {"username": "vendor@example.org", "password": "demo-pass-2026"})
    assert response.status_code == 302 and "_auth_user_id" in client.session
    client.logout()
    response = client.post(
        "/admin/login/", {"username": "editor@example.org", "password": "demo-pass-2026", "next": "/admin/"}
    )
    assert response.status_code == 302
    assert client.get("/admin/").status_code == 200
