"""What the tests share: paths, reference oracles, games and helpers written for the tests."""
