"""The Dice Wars study: the course's tournament of its reference bots (:mod:`.tournament`), dw-emm
measured against them (:mod:`.emm_experiment`), the tuned board value of ``dw-emm:leaf=value``
(:mod:`.value_tuning`) and the win-probability network of ``dw-emm:leaf=net`` (its data
:mod:`.winprob_data`, baselines :mod:`.winprob_baselines`, training :mod:`.winprob_training`,
judging :mod:`.winprob_study` and :mod:`.winprob_metrics`), with their commands (:mod:`.commands`,
:mod:`.value_commands`, :mod:`.winprob_commands`)."""
