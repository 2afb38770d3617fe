"""Fixtures of the voting tests (the world itself is built in tests/builders/voting.py)."""

from __future__ import annotations

import pytest

from tests.builders.voting import World, build_world, make_user


@pytest.fixture
def world(db) -> World:
    return build_world()


@pytest.fixture
def voter(db):
    return make_user("voter@example.com")


@pytest.fixture
def voter_client(client, voter):
    client.force_login(voter)
    return client
