"""Small game trees for the search tests (tests/test_engine_hooks.py,
tests/test_search_pieces.py): a tree is written as nested tuples whose ints are leaves."""

from engine.game import Game


class NestedTree(Game):
    """Test game: a state is a path of child indices into a nested tuple; ints are leaves.

    Non-leaf nodes at the cut-off are evaluated as 0 (their ints are unreachable there);
    a subclass gives them another deterministic value by overriding ``evaluate``.
    """

    def __init__(self, tree, max_root=True):
        self.tree, self.max_root = tree, max_root

    def node(self, path):
        node = self.tree
        for index in path:
            node = node[index]
        return node

    def actions(self, path):
        return list(range(len(self.node(path))))

    def result(self, path, index):
        return path + (index,)

    def is_terminal(self, path):
        return isinstance(self.node(path), int)

    def utility(self, path):
        return self.node(path)

    def is_maxs_turn(self, path):
        return (len(path) % 2 == 0) == self.max_root

    def evaluate(self, path):
        return 0


def random_tree(rng, depth):
    """A nested-tuple tree ``depth`` levels deep at most (leaves from -9 to 9, 1 to 4
    children a node, some branches ending early), drawn from ``rng``."""
    if depth == 0 or (depth < 4 and rng.random() < 0.2):
        return rng.randint(-9, 9)
    return tuple(random_tree(rng, depth - 1) for _ in range(rng.randint(1, 4)))
