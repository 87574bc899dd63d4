"""The terminal client: a pure view model, then prompt_toolkit layout, keys and style.

Modules, from pure to impure:

- `text`: display-safe strings, terminal widths and the drawn dice;
- `bidentry`: parsing typed bids ("4 5", "four 5s") and stepping through legal bids only;
- `viewmodel`: the table screen as plain data, from a `Snapshot` of one seat;
- `reveal`: the reveal, reviews, the pass screen and game over, as plain data;
- `lobbymodel`, `hostform`: the lobby's table list and the new-table form, as plain data;
- `screens`, `panels`: models rendered as lines of (style, text) fragments;
- `snapshot`: reads a ClientSession into a Snapshot (the only place that looks inside one);
- `runtime`: practice, pass-and-play, hosted and joined tables (sessions and links);
- `state`, `controller`, `clock`, `frame`: the one UI state object, what keys and time do
  to it, and the whole screen for the current mode;
- `keys`, `layout`, `app`, `lobby`: prompt_toolkit and the network tasks around it.

Nothing above `keys` imports prompt_toolkit; tests drive the models directly.
"""
