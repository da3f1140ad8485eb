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
        ("bluff:1.5", "bluff must be a probability"),
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

    assert player_parameters("one-third") == [Parameter("bluff", "0", None, "bluff")]
    pomcp = {p.name: p for p in player_parameters("pomcp")}
    assert pomcp["sims"] == Parameter("sims", "500", None, "num_sims") and pomcp["time"].default is None
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


def test_the_recommended_agent_is_the_first_of_the_list_that_takes_the_rules():
    from ldpomdp.registry import RECOMMENDED, recommended
    from ldpomdp.rules import GameConfig

    assert RECOMMENDED[0] == "robust" and recommended(GameConfig()) == ("robust", {})
    assert recommended(GameConfig.preset("perudo")) == recommended(GameConfig.preset("dudo")) == ("robust", {})
    assert recommended(GameConfig(num_players=3)) == ("robust", {})  # the shipped three-player blueprint
    spec, refusals = recommended(GameConfig(num_players=4))
    assert spec == "expected-count" and "blueprints are solved on demand for 3 players" in refusals["robust"]
