"""Helpers for the tests (pages, the lab, decks, builds, engines); no test module imports another."""
