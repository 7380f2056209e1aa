// Stand-in for the 'server-only' marker package under vitest (plain Node has no react-server condition).
