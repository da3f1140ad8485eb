"""Player specs: built-in names, positional values, user classes, clear errors."""

from __future__ import annotations

import re
import sys

import pytest

from ldpomdp import OneThirdRule, RandomPlayer, make_player, parse_spec, registry, split_specs
from ldpomdp.registry import canonical_spec, spec_text


def test_builtin_specs():
    assert isinstance(make_player("one-third"), OneThirdRule)
    bluffer = make_player("bluff:0.3")
    assert isinstance(bluffer, OneThirdRule) and bluffer.bluff == 0.3
    assert isinstance(make_player("random"), RandomPlayer)


def test_user_class_spec():
    player = make_player("ldpomdp.players.one_third:OneThirdRule:bluff=0.25")
    assert isinstance(player, OneThirdRule) and player.bluff == 0.25


def test_split_specs_keeps_parameters_together():
    assert split_specs("bluff:0.2, one-third,x.y:Z:a=1,b=2") == ["bluff:0.2", "one-third", "x.y:Z:a=1,b=2"]


def test_split_specs_keeps_nested_specs_in_parameters():
    text = "expected-count:belief=exact,assume=oehm:0.2,random,pomcp:sims=5,assume=bluff:0.3,oehm:bluff=0.1"
    specs = split_specs(text)
    assert specs == ["expected-count:belief=exact,assume=oehm:0.2", "random", "pomcp:sims=5,assume=bluff:0.3",
                     "oehm:bluff=0.1"]
    assert parse_spec(specs[0]).kwargs == {"belief": "exact", "assume": "oehm:0.2"}
    assert make_player(specs[2]).assume == "bluff:0.3"


@pytest.mark.parametrize(
    "spec, message",
    [
        ("nobody", "unknown player 'nobody'"),
        ("bluff:1.5", "bluff must be at most 1, got 1.5"),  # a bound of MAXIMA, checked as the spec is parsed
        ("bluff", "needs a value"),
        ("one-third:speed=3", r"bad parameters \{'speed': 3\}: OneThirdRule takes bluff, name \(got an unexpected"),
        ("no.such.module:Thing", "cannot import 'no.such.module:Thing' \\(no module named 'no'"),
        ("ldpomdp.rules:NoSuchThing", "module ldpomdp.rules has no 'NoSuchThing'"),
        ("ldpomdp.rules:CHALLENGE", "ldpomdp.rules:CHALLENGE is not a class"),
        ("ldpomdp.rules:is_legal", "ldpomdp.rules:is_legal is not a class \\(it is of type function\\)"),
        ("ldpomdp.rules:GameConfig", "lacks Player method"),
    ],
)
def test_bad_specs(spec, message):
    with pytest.raises(ValueError, match=message):
        make_player(spec)


@pytest.mark.parametrize("written, canonical", [
    ("one-third", "one-third"), ("bluff:0.3", "bluff:0.3"), ("pomcp", "pomcp"), ("pomcp:sims=200", "pomcp:sims=200"),
    ("expected-count:particles=10000", "expected-count:particles=10000"),
    ("pomcp:num_sims=200", "pomcp:sims=200"), (" pomcp : sims = 200 , ", "pomcp:sims=200"), ("pomcp:", "pomcp"),
    ("bluff:0.30", "bluff:0.3"), ("bluff:bluff=.3", "bluff:0.3"), ("bluff:1.0", "bluff:1"), ("bluff:3e-1", "bluff:0.3"),
    ("expected-count:particles=1000,belief=exact", "expected-count:belief=exact,particles=1000"),
    ("expected-count:n_particles=1e3,belief=exact", "expected-count:belief=exact,particles=1000"),
    ("x.y:Z:b=True,a=FALSE, c = some text ", "x.y:Z:a=false,b=true,c=some text"),
    ("lbr:policy=oehm:0.2", "lbr:oehm:0.2"), ("lbr:policy=[oehm:bluff=0.20],lookahead=1", "lbr:oehm:0.2,lookahead=1"),
    ("lbr:[expected-count:particles=50,belief=exact]", "lbr:[expected-count:belief=exact,particles=50]"),
    ("expected-count:assume=[burcsi-nagy:t=0.1,s=0.5]", "expected-count:assume=[burcsi-nagy:s=0.5,t=0.1]"),
    ("pomcp:assume=oehm:0.2,sims=5", "pomcp:assume=oehm:0.2,sims=5"),
    ("mixture:types=one-third+random", "mixture:types=[one-third,random]"),
    ("mixture:types=random", "mixture:types=[random]"),
    ("mixture:types=[ one-third , burcsi-nagy:t=0.1,s=0.5 ],safe=none",
     "mixture:safe=none,types=[one-third,burcsi-nagy:s=0.5,t=0.1]"),
    ("robust:safe=[cfr:table=t.npz]", "robust:safe=cfr:table=t.npz"), ("cfr:table=[a,b.npz]", "cfr:table=[a,b.npz]"),
    ("best-response:assume=[lbr:[pomcp:sims=5,depth=2]]", "best-response:assume=[lbr:[pomcp:depth=2,sims=5]]"),
])
def test_every_spelling_of_a_player_has_one_canonical_text(written, canonical):
    assert canonical_spec(written) == canonical and canonical_spec(canonical) == canonical
    assert parse_spec(written).kwargs == parse_spec(canonical).kwargs  # the canonical text builds the same player


@pytest.mark.parametrize("spec, message", [
    ("expected-count:assume=[oehm:0.2", r"a '\[' is never closed"),
    ("expected-count:assume=oehm:0.2]", r"a '\]' closes no '\['"),
    ("cfr:table=t[1].npz", "brackets must enclose a whole value, got 't\\[1\\].npz'"),
    ("pomcp:sims=5,num_sims=6", "gives sims twice"),
    ("mixture:types=[]", "parameter types: needs player specs"),
    ("expected-count:assume=nobody", "parameter assume: unknown player 'nobody'"),
    ("mixture:types=[one-third,0.3]", "unknown player '0.3'"),
    ("one-third:0.3", "expected key=value, got '0.3'"),
    ("lbr:oehm:0.2,lookahead=1,one-third", "expected key=value, got 'one-third'"),
    ("x.y-z:Bot", "expected package.module:ClassName"),
])
def test_a_spec_that_breaks_the_grammar_is_one_line_naming_it(spec, message):
    with pytest.raises(ValueError, match=message) as err:
        parse_spec(spec)
    assert "\n" not in str(err.value)


def test_files_and_modules_are_found_by_the_kind_of_their_parameter_at_any_depth():
    assert parse_spec("cfr:table=notes.txt").external() == ["the file 'notes.txt' (cfr's table)"]
    assert parse_spec("mixture:types=[one-third,expected-count:assume=[dqn:weights=w,belief=exact]]").external() == [
        "the file 'w' (dqn's weights)"]
    assert parse_spec("lbr:[robust:safe=cfr:table=x,types=[a.b:C]]").external() == [
        "the file 'x' (cfr's table)", "the module a.b"]
    assert parse_spec("pomcp:rollout=/etc/passwd,assume=oehm:0.2").external() == []  # a word, not a file: refused
    with pytest.raises(ValueError, match="rollout must be one of"):  # when built
        make_player("pomcp:rollout=/etc/passwd")


def test_the_declared_kinds_name_parameters_the_players_take():
    import inspect

    for name, entry in registry._REGISTRY.items():
        if name == "openspiel":
            pytest.importorskip("pyspiel")
        module, _, attr = entry.target.partition(":")
        parameters = inspect.signature(getattr(__import__(module, fromlist=[attr]), attr)).parameters
        assert set(entry.kinds) | set(entry.aliases.values()) <= set(parameters), name
        assert entry.positional is None or entry.positional in parameters, name


def test_spec_text_writes_a_players_canonical_spec():
    assert spec_text("lbr", {"policy": "expected-count:particles=5,belief=exact", "lookahead": 1, "raises": None}) == (
        "lbr:[expected-count:belief=exact,particles=5],lookahead=1")
    assert spec_text("mixture", {"types": ("one-third", "oehm:0.20"), "tremble": 0.05}) == (
        "mixture:tremble=0.05,types=[one-third,oehm:0.2]")
    assert make_player("lbr:[burcsi-nagy:s=0.5,t=0.1]").name == "lbr:[burcsi-nagy:s=0.5,t=0.1]"


def test_parse_values():
    assert parse_spec("x.y:Z:a=1,b=0.5,c=true,d=text").kwargs == {"a": 1, "b": 0.5, "c": True, "d": "text"}


USER_MODULES = {
    "raises_at_import": 'SETTINGS = {}\n\n\ndef load():\n    return SETTINGS["level"]\n\n\nLEVEL = load()\n',
    "syntax_error": "class Bot:\n    def act(self, view rng):\n        pass\n",
    "bots": (
        "from ldpomdp.opponent import BaseOpponent\n\n\n"
        "class Picky(BaseOpponent):\n"
        "    def __init__(self, levels=(1, 2)):\n"
        "        self.top = max(levels)  # a TypeError inside the constructor, not a bad parameter\n\n"
        "    def act(self, view, rng):\n"
        "        return view.legal_actions()[0]\n"
    ),
}


@pytest.fixture
def user_package(tmp_path, monkeypatch):
    """A package ``userpkg`` on the path holding the modules above."""
    package = tmp_path / "userpkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, text in USER_MODULES.items():
        (package / f"{name}.py").write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield package
    for name in [m for m in sys.modules if m.startswith("userpkg")]:
        del sys.modules[name]


@pytest.mark.parametrize("module, where, last, reason", [
    ("raises_at_import", 'line 5, in load\n    return SETTINGS["level"]', "KeyError: 'level'", "KeyError: 'level'"),
    ("syntax_error", "line 2\n    def act(self, view rng):", "SyntaxError: invalid syntax",
     r"SyntaxError: invalid syntax[^\n]* \(syntax_error\.py, line 2\)"),
])
def test_a_module_that_fails_to_import_is_reported_with_its_own_lines(user_package, module, where, last, reason):
    """The first line says why (a web page shows only that line); the user's own traceback lines follow."""
    with pytest.raises(ValueError) as err:
        make_player(f"userpkg.{module}:Bot")
    text = str(err.value)
    assert re.match(f"player spec 'userpkg.{module}:Bot': importing userpkg.{module} failed: {reason}\n", text)
    assert f'File "{user_package / f"{module}.py"}", {where}' in text
    assert text.endswith(last) and "importlib" not in text and "registry.py" not in text


def test_a_constructor_error_is_not_reported_as_bad_parameters(user_package):
    with pytest.raises(ValueError) as err:
        make_player("userpkg.bots:Picky:levels=3")
    text = str(err.value)
    assert text.startswith("player spec 'userpkg.bots:Picky:levels=3': Picky(levels=3) raised TypeError: 'int' "
                           "object is not iterable\n")
    assert "self.top = max(levels)" in text and text.endswith("TypeError: 'int' object is not iterable")
    with pytest.raises(ValueError, match=r"bad parameters \{'level': 3\}: Picky takes levels \(got an unexpected"):
        make_player("userpkg.bots:Picky:level=3")


def test_a_checkout_imported_without_its_install_is_named_with_the_fix(monkeypatch):
    """The planners live in planners/ of a checkout and install as ldpomdp.planners: a checkout's ldpomdp/ on the
    path without that install must say so, not advise PYTHONPATH (which is the cause)."""
    import sys

    for name in [m for m in sys.modules if m.startswith("ldpomdp.planners")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "ldpomdp.planners", None)  # as if the package had no planners
    with pytest.raises(ValueError, match=r"has no planners: a source checkout without its install \(pip install -e"):
        make_player("expected-count")


def test_player_parameters_are_what_a_spec_can_set_with_their_defaults_as_spec_text():
    from ldpomdp.registry import Parameter, player_parameters

    assert player_parameters("one-third") == [Parameter("bluff", "0", None, "bluff", 1)]
    pomcp = {p.name: p for p in player_parameters("pomcp")}
    assert pomcp["sims"] == Parameter("sims", "500", None, "num_sims", 10_000_000) and pomcp["time"].default is None
    assert pomcp["assume"] == Parameter("assume", "one-third", registry.SPEC, "assume")
    assert player_parameters("human") == []  # streams, not something a spec's text gives
    assert [p.name for p in player_parameters("best-response")] == ["assume"]  # a solved object left out
    assert [(p.name, p.kind) for p in player_parameters("dqn")] == [("weights", registry.FILE), ("assume", "spec")]
    for name, entry in registry._REGISTRY.items():  # every parameter listed is one a spec can give
        for parameter in player_parameters(name):
            given = {parameter.name: parameter.default or "x"}
            if entry.positional and entry.positional != parameter.key:  # the value such a spec always needs
                given = {entry.shown(entry.positional): "one-third" if name == "lbr" else "0.3", **given}
            spec = f"{name}:" + ",".join(f"{k}={v}" for k, v in given.items())
            assert parameter.key in parse_spec(spec).kwargs


def test_the_recommended_agent_is_robust_a_registered_seat_and_nothing_builds_it_to_find_it_out():
    # issue 52: robust plays every table, so no list of agents tried in turn (each built and reset: a solve)
    from ldpomdp.registry import RECOMMENDED, registered_names

    assert RECOMMENDED == "robust" and RECOMMENDED in registered_names(seats_only=True)


def test_every_numeric_parameter_of_a_registered_player_has_a_maximum_above_its_default():
    # issue 55: a number too large for numpy or pomdp-py failed in game 0 with their traceback
    from ldpomdp.registry import MAXIMA, player_parameters

    for name in registry._REGISTRY:
        for parameter in player_parameters(name):
            annotation = str(registry._settable(_factory(name))[_keys(name).index(parameter.key)].annotation)
            if {"int", "float"} & {t.strip() for t in annotation.split("|")}:
                assert parameter.maximum == MAXIMA[parameter.key], (name, parameter)
                if parameter.default is not None:
                    assert float(parameter.default) <= parameter.maximum, (name, parameter)


def _factory(name):
    import importlib

    module, _, attr = registry._REGISTRY[name].target.partition(":")
    return getattr(importlib.import_module(module), attr)


def _keys(name):
    return [p.name for p in registry._settable(_factory(name))]


@pytest.mark.parametrize("spec, named", [
    ("expected-count:particles=99999999999999999999999", "particles must be at most 1,000,000, got "
                                                         "99999999999999999999999"),
    ("pomcp:sims=10000000000000", "sims must be at most 10,000,000, got 10000000000000"),
    ("pomcp:time=1e400", "time must be at most 3,600, got 1e400"),
    ("expected-count:particles=nan", "particles must be at most 1,000,000, got nan"),
    ("lbr:[pomcp:depth=5000]", "depth must be at most 1,000, got 5000"),  # at any depth
])
def test_a_number_above_its_maximum_is_refused_when_the_spec_is_parsed(spec, named):
    with pytest.raises(ValueError, match=re.escape(named)) as err:
        parse_spec(spec)  # nothing built yet: before any game
    assert "\n" not in str(err.value)
    assert canonical_spec("pomcp:sims=10000000,particles=1000000") == "pomcp:particles=1000000,sims=10000000"


@pytest.mark.parametrize("written, canonical", [
    ("lbr:quantal:ends=fair", "lbr:quantal,ends=fair"),  # the key quantal does not take goes to lbr
    ("lbr:quantal:reads=true,ends=fair", "lbr:quantal:reads=true,ends=fair"),  # as before
    ("lbr:quantal:ends=fair,reads=true,lookahead=1", None),  # lbr takes no reads: its build says so, as before
    ("lbr:one-third:lookahead=1", "lbr:one-third,lookahead=1"),
    ("lbr:oehm:0.2:lookahead=1", None),  # one piece "0.2:lookahead=1": the positional value, as before
    ("pomcp:assume=quantal:reads=true:sims=5", None),
    ("pomcp:assume=quantal:sims=5", "pomcp:assume=quantal,sims=5"),
    ("robust:safe=cfr:table=t.npz", "robust:safe=cfr:table=t.npz"),  # both take table: it stays with cfr
    ("lbr:cfr:table=t.npz", "lbr:cfr:table=t.npz"),
    ("lbr:[quantal:reads=true],ends=fair", "lbr:quantal:reads=true,ends=fair"),
])
def test_a_key_the_nested_player_does_not_take_goes_to_the_player_around_it(written, canonical):
    if canonical is None:  # the key goes nowhere new: the text keeps its meaning
        assert canonical_spec(written) == canonical_spec(canonical_spec(written))
        return
    assert canonical_spec(written) == canonical
    assert parse_spec(written).kwargs == parse_spec(canonical).kwargs


def test_a_key_no_player_of_a_nested_spec_takes_is_refused_showing_the_bracketed_form():
    with pytest.raises(ValueError, match=re.escape("neither quantal nor lbr takes speed (quantal takes fit, reads, "
                                                   "temperature; lbr takes ends, lookahead, policy, raises, table)")
                       ) as err:
        parse_spec("lbr:quantal:speed=2,ends=fair")
    assert "\n" not in str(err.value) and str(err.value).endswith("'lbr:[quantal],speed=2'")
    with pytest.raises(ValueError, match=re.escape("'pomcp:assume=[quantal],speed=2'")):
        parse_spec("pomcp:assume=quantal:speed=2,sims=5")


def test_a_long_spec_is_echoed_cut_in_its_error():
    # issue 55: a 20,000-character spec was echoed twice in the error line
    from ldpomdp.errors import ECHO_LIMIT, echo

    assert echo("short") == "'short'" and echo("x" * 300, quote=False) == "x" * ECHO_LIMIT + "... (300 characters)"
    for spec in ["x" * 20_000, "bluff:" + "9" * 20_000, "lbr:" + "quantal:" * 3_000]:
        with pytest.raises(ValueError) as err:
            make_player(spec)
        assert len(str(err.value)) < 600 and "(2" in str(err.value), str(err.value)[:600]
