"""Adapters that put the sans-I/O core on a LAN: aiohttp host and client, zeroconf discovery."""
