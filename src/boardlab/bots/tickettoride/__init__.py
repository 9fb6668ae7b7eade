"""Ticket to Ride's players: the study's algorithmic player (:mod:`.algorithmic`, its planning in
:mod:`.planning`, its numba twin in :mod:`.compiled`), the search over its playouts (:mod:`.search`,
``ttr-ismcts``) and the study's classifier as a player (:mod:`.net`, ``ttr-net``: its features in
:mod:`.features`, its network in :mod:`.network`). Training that network is the study's work
(:mod:`boardlab.studies.tickettoride`)."""
