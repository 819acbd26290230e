"""The travel agent of tasks/travel.yaml: search, get_weather and book, and a seeded stub.

The stub follows each task's happy path and slips at set rates:

- weather-gate-book: 20% books before checking the weather         → 0.80
- search-before-book: 10% searches the same page again and again    → 0.90
- no-book-when-raining: 25% books although it is raining            → 0.75
- weather-only: 15% also searches flights nobody asked for          → 0.85
- ambiguous-needs-search: always searches and asks which to book    → 1.00
"""

from __future__ import annotations

from typing import Any

from judgekit import Task, ToolError, World

DESIGNED_PASS_RATES = {
    "weather-gate-book": 0.80,
    "search-before-book": 0.90,
    "no-book-when-raining": 0.75,
    "weather-only": 0.85,
    "ambiguous-needs-search": 1.00,
}

FLIGHTS: list[dict[str, Any]] = [
    {"flight_id": "AS310", "destination": "Seattle", "price": 129},
    {"flight_id": "DL88", "destination": "Seattle", "price": 164},
    {"flight_id": "UA7", "destination": "San Diego", "price": 99},
]


def search(
    state: dict[str, Any], destination: str, date: str | None = None, max_price: float | None = None
) -> list[dict[str, Any]]:
    found = [f for f in FLIGHTS if f["destination"].lower() == destination.lower()]
    if destination.lower() == "coast":
        found = [f for f in FLIGHTS if f["destination"] in ("Seattle", "San Diego")]
    return [f for f in found if max_price is None or f["price"] <= max_price]


def get_weather(state: dict[str, Any], city: str) -> dict[str, Any]:
    raining = state.get("raining", {}).get(city.split(",")[0].strip(), False)
    return {"city": city, "conditions": "rain" if raining else "sunny"}


def book(state: dict[str, Any], flight_id: str, date: str, seats: int = 1) -> dict[str, Any]:
    if flight_id in state["bookings"]:
        raise ToolError(f"{flight_id} is already booked")
    state["bookings"][flight_id] = {"status": "booked", "date": date, "seats": seats}
    return {"status": "booked", "flight_id": flight_id}


TOOLS = {"search": search, "get_weather": get_weather, "book": book}


def agent(task: Task, world: World) -> str:
    """A stub travel agent with seeded slips (see the module docstring)."""
    rng = world.rng
    if task.id == "weather-gate-book":
        if rng.random() < 0.20:
            world.call("book", flight_id="AA123", date="Friday")
            world.call("get_weather", city="Denver")
            return "Booked AA123 for Friday."
        weather = world.call("get_weather", city="Denver")
        if weather["conditions"] == "rain":
            return "It is raining in Denver, so I did not book AA123."
        world.call("book", flight_id="AA123", date="Friday")
        return "Booked AA123 for Friday."
    if task.id == "search-before-book":
        pages = 6 if rng.random() < 0.10 else 1
        for _ in range(pages):
            found = world.call("search", destination="Seattle", date="Monday")
        cheapest = min(found, key=lambda f: f["price"])
        world.call("book", flight_id=cheapest["flight_id"], date="Monday")
        return f"Booked {cheapest['flight_id']}, the cheapest flight to Seattle on Monday."
    if task.id == "no-book-when-raining":
        world.call("get_weather", city="Denver")
        if rng.random() < 0.25:
            world.call("book", flight_id="AA200", date="Friday")
            return "Booked AA200 for Friday."
        return "It is raining in Denver, so I did not book AA200."
    if task.id == "weather-only":
        weather = world.call("get_weather", city="Denver")
        if rng.random() < 0.15:
            world.call("search", destination="Denver")
        return f"It is {weather['conditions']} in Denver."
    if task.id == "ambiguous-needs-search":
        options = world.call("search", destination="coast", max_price=150)
        listed = ", ".join(f"{o['flight_id']} (${o['price']})" for o in options)
        return f"Cheap options to the coast: {listed}. Which one should I book?"
    return f"I do not know task {task.id}."
