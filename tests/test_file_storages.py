"""Where stored files go: the local disk by default, S3-compatible object storage with STORAGE_URL."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.files.storage import FileSystemStorage, storages

from config.env import FILE_STORAGES, file_storages
from runs.models import Evidence, evidence_storage


def test_by_default_every_kind_of_file_is_on_the_local_disk():
    for name in ("evidence", "app_builds", "transcripts"):
        assert name in settings.STORAGES
        assert isinstance(storages[name], FileSystemStorage)
    # The field asks for the "evidence" storage by name each time the models load (as its migration records),
    # so STORAGE_URL moves evidence with the rest. Compared through the callable, not the object the field holds:
    # a test that changes STATIC_URL, MEDIA_ROOT or STORAGES makes Django build its storages anew.
    _, _, _, kwargs = Evidence._meta.get_field("file").deconstruct()
    assert kwargs["storage"] is evidence_storage
    assert evidence_storage() is storages["evidence"]


def test_a_storage_url_puts_every_kind_in_one_private_bucket():
    found = file_storages(
        "s3://lb-files/site?endpoint_url=http://127.0.0.1:9000&region=eu-west-1&addressing_style=path"
    )
    assert set(found) == set(FILE_STORAGES)
    for config in found.values():
        assert config["BACKEND"] == "storages.backends.s3.S3Storage"
        options = config["OPTIONS"]
        assert options["bucket_name"] == "lb-files" and options["location"] == "site"
        assert options["endpoint_url"] == "http://127.0.0.1:9000" and options["region_name"] == "eu-west-1"
        assert options["addressing_style"] == "path"
        # Private: no ACL, signed URLs only, and a second file of a name never replaces the first.
        assert options["default_acl"] is None and options["querystring_auth"] is True
        assert options["file_overwrite"] is False


@pytest.mark.parametrize("url", ["http://bucket", "s3://", "file:///var/media"])
def test_a_storage_url_that_is_not_s3_is_refused(url):
    with pytest.raises(ImproperlyConfigured, match="STORAGE_URL"):
        file_storages(url)


def test_the_s3_backend_is_installed():
    from storages.backends.s3 import S3Storage

    storage = S3Storage(
        **file_storages("s3://b?endpoint_url=http://127.0.0.1:1&region_name=us-east-1")["evidence"]["OPTIONS"]
    )
    assert storage.bucket_name == "b"
