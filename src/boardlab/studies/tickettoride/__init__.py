"""The Ticket to Ride study (Łabno 2018): the algorithmic player's 1,000-game experiment
(:mod:`.study`, ``boardlab experiment ttr-study``) and the classifier that imitates it: its
decisions as data (:mod:`.dataset`), training (:mod:`.training`), the three experiments
(:mod:`.classifier`) and their commands (:mod:`.commands`, :mod:`.classifier_commands`).
docs/tickettoride.md and docs/tickettoride-classifier.md give the results."""
