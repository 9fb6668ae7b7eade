"""Connect Four's agents: ``perfect`` (the solver and its opening book, :mod:`.perfect`) and ``qnet``
(greedy on a Q-network learned by self-play, :mod:`.qnet`), with the network (:mod:`.network`) and
the config, checkpoint and run files it plays from (:mod:`.qnet_files`)."""
