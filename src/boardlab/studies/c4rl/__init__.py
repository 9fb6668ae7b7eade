"""The Connect Four self-play Q-learning study (docs/c4-rl.md): training runs (:mod:`.training`, compiled
games in :mod:`.kernel`), rankings and learning curves (:mod:`.ranking`), the study's stages
(:mod:`.stages`), and the tools around the ``perfect`` agent it is measured with: the opening book's
recipe (:mod:`.book_commands`) and the grading set's experiment (:mod:`.grading_set`,
:mod:`.grading_commands`). The commands are in :mod:`.commands`."""
