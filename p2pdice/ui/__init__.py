"""The terminal client: a pure view model, then prompt_toolkit layout, keys and style.

Modules, from pure to impure:

- `ports`: what the ui needs from the world (sessions, the open table, the lobby's
  services), as Protocols: the command line hands in objects of these shapes, and the ui
  imports neither `p2pdice.net` nor `p2pdice.cli`;
- `text`: display-safe strings, terminal widths and the drawn dice;
- `bidentry`: parsing typed bids ("4 5", "four 5s") and stepping through legal bids only;
- `facts`: the log's notes, our alarms and the end-of-game check's findings as structured
  fields (from the core's own fields: nothing parses their text);
- `defaults`: what a new table starts with where nobody chose (from the rules' options);
- `viewmodel`: the table screen as plain data, from a `Snapshot` of one seat;
- `reveal`: the reveal, reviews, the pass screen and game over, as plain data;
- `lobbymodel`, `hostform`: the lobby's table list and the new-table form, as plain data;
- `screens`, `panels`: models rendered as lines of (style, text) fragments;
- `snapshot`: reads a session into a Snapshot (the only place that looks inside one), and
  fits a reading to one event, both pure;
- `state`, `modes`: the one UI state object; which screen shows and what new facts change,
  as pure functions;
- `controller`, `clock`, `frame`: the event step (read the sessions that changed, apply what
  their facts change) and one snapshot per event (key, tick, session update), what keys and
  time do, and the whole screen for the current mode;
- `keys`, `layout`, `app`, `lobby`: prompt_toolkit and the lobby's keys around it.

Nothing above `keys` imports prompt_toolkit; tests drive the models directly.
"""
