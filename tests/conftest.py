import os

import pytest
from hypothesis import settings

# CI runs every property test with the same budget, and never times a test.
settings.register_profile("boardlab", deadline=None, max_examples=100, derandomize=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "boardlab"))

# The fast tier (`make check`: pytest -m "not slow and not browser") is the rules, the units and
# every game's quick conformance; what plays whole games, trains, serves the web app or runs the
# arena end to end is marked slow here, by file or by test, and runs in `make test` only. Kept in
# one place so that the tier is decided by what a test costs, not left to each module; a new test
# is in the fast tier until it is listed here or marked slow itself (a parameter, as in
# test_conformance.py). tests/test_fast_tier.py checks that every name below still exists.
SLOW_FILES = {
    # the web app and the arena, end to end
    "test_fair_play.py", "test_web_api.py", "test_web_boards_api.py", "test_web_endgame.py", "test_web_fuzz.py",
    "test_web_hardening.py", "test_web_serve.py", "test_web_views.py", "test_arena_ray.py", "test_arena_tournament.py", "test_arena_pool.py",
    "test_arena_resolved_options.py", "test_arena_ratings.py",
    # the command line in subprocesses, and every file reader fuzzed
    "test_cli_hardening.py", "test_nothanks_cli.py", "test_fuzz_files.py",
    # other libraries' engines and test suites run on our games
    "test_openspiel.py", "test_openspiel_agreement.py", "test_pettingzoo.py",
    # training, and searches run to exact results
    "test_ttr_classifier.py", "test_rl_batch.py", "test_rl_compiled_kernel.py", "test_rl_stages.py", "test_nothanks_net.py",
    "test_dicewars_value.py", "test_dicewars_winprob_net.py", "test_az_compiled.py", "test_az_solver.py",
}
SLOW_TESTS = {
    "test_az.py::test_a_run_from_before_augmentation_resumes_without_it",
    "test_az.py::test_evaluate_plays_the_committed_mancala_model_and_refuses_other_files",
    "test_az.py::test_search_takes_the_win_and_blocks_the_threat",
    "test_az.py::test_train_az_json_on_mancala_and_a_rerun_carries_on",
    "test_az.py::test_train_az_ends_with_a_play_command_that_plays_the_model",
    "test_az.py::test_train_az_resumes_after_sigkill_to_the_same_weights",
    "test_az_tables.py::test_training_on_a_hidden_information_game_is_evaluated_at_tables",
    "test_az_tables.py::test_the_trained_model_plays_a_whole_game_as_az_and_evaluate_prints_its_tables",
    "test_chess.py::test_default_mcts_beats_random_at_chess",
    "test_chess.py::test_encoding_round_trips_every_legal_move_of_thousands_of_positions",
    "test_cli.py::test_console_script_entry_point",
    "test_commands.py::test_evaluate_a_tiny_connect_four_run",
    "test_commands.py::test_evaluate_the_committed_nothanks_model_writes_nothing_beside_it",
    "test_commands.py::test_recipes_are_imported_only_when_used",
    "test_dicewars.py::test_compiled_games_keep_the_rules_invariants",
    "test_dicewars.py::test_conditioned_dice_keep_the_dice_distribution",
    "test_dicewars_emm.py::test_a_tournament_reports_its_decisions_nodes_and_time",
    "test_dicewars_emm.py::test_dw_emm_rollouts_with_the_opponent_model_play_whole_games",
    "test_dicewars_emm.py::test_dw_emm_with_rollouts_plays_legal_reproducible_games",
    "test_dicewars_emm.py::test_the_experiment_plays_every_measurement_and_pairs_them",
    "test_game_trees.py::test_the_viewer_shows_boards_and_plays_on_from_an_uploaded_tree",
    "test_perfect_and_grading.py::test_move_score_of_one_column",
    "test_rl_agents.py::test_short_training_beats_random_more_often",
    "test_solver.py::test_book_builds_both_seats_apart_and_merges",
    "test_solver.py::test_book_check_reports_a_wrong_entry",
    "test_solver.py::test_book_command_streams_json_and_merges",
    "test_solver.py::test_shipped_book_agrees_with_a_search_without_it",
    "test_tickettoride.py::test_determinised_mcts_plays_the_game_through_the_protocol",
    "test_tickettoride.py::test_the_study_preset_conforms",
    "test_tickettoride_kernel.py::test_checked_random_games_break_no_rule",
    "test_tickettoride_kernel.py::test_random_games_from_fresh_deals_end",
    "test_tree_diff.py::test_repeated_sibling_labels_match_in_order",
    "test_ttr_algorithmic.py::test_the_compiled_player_plays_the_python_players_games",
    "test_ttr_study.py::test_the_command_prints_json_and_draws_the_figures",
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.name in SLOW_FILES or f"{item.path.name}::{item.originalname}" in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)


@pytest.fixture()
def client(tmp_path):
    """The web app in this process, on a fresh data folder (the web API tests)."""
    from fastapi.testclient import TestClient

    from boardlab.web.app import create_app

    with TestClient(create_app(tmp_path / "data")) as c:
        yield c
