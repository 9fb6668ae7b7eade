"""The No Thanks! players: the imitation study's rule-based expert (:mod:`.expert`, played by
``nothanks-expert``) and the network that imitates it (:mod:`.network`, played by ``nothanks-net``).
Importing this package loads no torch; the network's agent loads it with its model."""
