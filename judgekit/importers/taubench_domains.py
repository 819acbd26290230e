"""τ-bench's own domains: which tools change the data, and how its data hash sees arguments.

τ-bench rewards a run whose final data hashes as the ground truth's replay leaves it
(``tau_bench/envs/base.py``: ``to_hashable`` keeps lists in order, sorts dict keys). Read
from τ-bench's tool files, ``tau_bench/envs/{airline,retail}/tools/*.py``:

- the tools whose ``invoke`` changes ``data`` (every other tool only reads it);
- the list arguments a tool stores sorted (retail's exchanges and returns keep
  ``sorted(item_ids)``), so any order hashes the same; every other list is kept in order
  (flights, passengers, payments; ``modify_pending_order_items`` pairs ``item_ids[i]`` with
  ``new_item_ids[i]``);
- the writes whose exact repeat leaves the data as the first call left it (an address set
  twice; a reservation's flights, passengers or bags set to what they already are).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass


@dataclass(frozen=True)
class Domain:
    """One τ-bench domain as its tool files define it."""

    name: str
    read_only: frozenset[str]
    writes: frozenset[str]
    sorted_list_args: frozenset[tuple[str, str]]
    idempotent: frozenset[str]

    @property
    def tools(self) -> frozenset[str]:
        return self.read_only | self.writes


_SHARED_READ_ONLY = {"calculate", "get_user_details", "think", "transfer_to_human_agents"}

DOMAINS = (
    Domain(
        name="airline",
        read_only=frozenset(
            _SHARED_READ_ONLY
            | {
                "get_reservation_details",
                "list_all_airports",
                "search_direct_flight",
                "search_onestop_flight",
            }
        ),
        writes=frozenset(
            {
                "book_reservation",
                "cancel_reservation",
                "send_certificate",
                "update_reservation_baggages",
                "update_reservation_flights",
                "update_reservation_passengers",
            }
        ),
        sorted_list_args=frozenset(),
        idempotent=frozenset(
            {
                "update_reservation_baggages",
                "update_reservation_flights",
                "update_reservation_passengers",
            }
        ),
    ),
    Domain(
        name="retail",
        read_only=frozenset(
            _SHARED_READ_ONLY
            | {
                "find_user_id_by_email",
                "find_user_id_by_name_zip",
                "get_order_details",
                "get_product_details",
                "list_all_product_types",
            }
        ),
        writes=frozenset(
            {
                "cancel_pending_order",
                "exchange_delivered_order_items",
                "modify_pending_order_address",
                "modify_pending_order_items",
                "modify_pending_order_payment",
                "modify_user_address",
                "return_delivered_order_items",
            }
        ),
        sorted_list_args=frozenset(
            {
                ("exchange_delivered_order_items", "item_ids"),
                ("exchange_delivered_order_items", "new_item_ids"),
                ("return_delivered_order_items", "item_ids"),
            }
        ),
        idempotent=frozenset({"modify_pending_order_address", "modify_user_address"}),
    ),
)


def recognise_domain(truth_tools: Collection[str], called: Collection[str]) -> Domain | None:
    """The τ-bench domain these tools belong to, or None when no single one fits.

    Every tool a ground truth uses must be one of the domain's, and the ground truths and
    calls together must use a tool only that domain has (a file using only the tools both
    share says nothing).
    """
    seen = set(truth_tools) | set(called)
    fitting = [
        domain
        for domain in DOMAINS
        if set(truth_tools) <= domain.tools
        and seen & (domain.tools - {t for d in DOMAINS if d is not domain for t in d.tools})
    ]
    return fitting[0] if len(fitting) == 1 else None
