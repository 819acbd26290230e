"""The monitor's queries run on both backends, as the store's own tests do."""

from tests.store.conftest import store, store_url

__all__ = ["store", "store_url"]
