"""Player specs: built-in names, positional values, user classes, clear errors."""

from __future__ import annotations

import sys

import pytest

from ldpomdp import OneThirdRule, RandomPlayer, make_player, parse_spec, split_specs


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


@pytest.mark.parametrize("module, where, last", [
    ("raises_at_import", 'line 5, in load\n    return SETTINGS["level"]', "KeyError: 'level'"),
    ("syntax_error", "line 2\n    def act(self, view rng):", "SyntaxError: invalid syntax"),
])
def test_a_module_that_fails_to_import_is_reported_with_its_own_lines(user_package, module, where, last):
    with pytest.raises(ValueError) as err:
        make_player(f"userpkg.{module}:Bot")
    text = str(err.value)
    assert text.startswith(f"player spec 'userpkg.{module}:Bot': importing userpkg.{module} failed:\n")
    assert f'File "{user_package / f"{module}.py"}", {where}' in text
    assert text.endswith(last) and "importlib" not in text and "registry.py" not in text


def test_a_constructor_error_is_not_reported_as_bad_parameters(user_package):
    with pytest.raises(ValueError) as err:
        make_player("userpkg.bots:Picky:levels=3")
    text = str(err.value)
    assert text.startswith("player spec 'userpkg.bots:Picky:levels=3': Picky(levels=3) raised TypeError:\n")
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
