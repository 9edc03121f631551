"""The GGP network protocol: messages, a player server and a game manager."""
