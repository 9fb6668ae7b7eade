"""The No Thanks! imitation study: the network taught the rule-based expert's values (:mod:`.training`),
the study's numbers over seeds and real 4-player games (:mod:`.experiments`), and its commands
(:mod:`.commands`: ``boardlab train nothanks-imitation``, ``boardlab experiment nothanks-imitation``).
The network and the expert it imitates are the agents' (:mod:`boardlab.bots.nothanks`)."""
