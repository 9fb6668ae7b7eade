"""Ticket to Ride on the USA map: the map data (:mod:`.map`), the rules (:mod:`.state`), scoring
(:mod:`.scoring`), determinisation (:mod:`.hidden`) and the compiled playouts (:mod:`.kernel`)."""

from boardlab.games.tickettoride.state import TicketToRide, TicketToRideState

__all__ = ["TicketToRide", "TicketToRideState"]
