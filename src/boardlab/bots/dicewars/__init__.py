"""The Dice Wars course's reference bots, reimplemented from their documented behaviour
(the Dice Wars rules, docs/references.md): one small module each, plain Python.
:mod:`boardlab.bots.dicewars.compiled` holds their compiled twins for fast bot games; the tests
check both choose alike."""
