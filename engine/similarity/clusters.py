"""Clusters: the connected groups of entries joined by pairs scoring at least a threshold.

Three students who passed one program around make a cluster of three even when one pair
of them scores below the threshold (its two members are joined through the third).
"""

from typing import Dict, List, NamedTuple, Sequence

from .pairs import Pair

# The default threshold: half of each side's fingerprints found in the other, on average.
THRESHOLD = 0.5


class Cluster(NamedTuple):
    """Members (entry indices, in name order) and the pairs inside the cluster at or
    above the threshold (the edges that joined it), best first."""
    members: List[int]
    pairs: List[Pair]


def clusters(pairs: Sequence[Pair], names: Sequence[str], threshold: float = THRESHOLD
             ) -> List[Cluster]:
    """The clusters of ``pairs`` (ranked, as :func:`engine.similarity.pairs.rank_pairs`
    gives them), largest first, then by their best pair's score."""
    parent: Dict[int, int] = {}

    def root(index: int) -> int:
        while parent.setdefault(index, index) != index:
            parent[index] = parent[parent[index]]       # path halving
            index = parent[index]
        return index

    edges = [pair for pair in pairs if pair.score >= threshold]
    for pair in edges:
        parent[root(pair.a)] = root(pair.b)
    groups: Dict[int, List[int]] = {}
    for index in parent:
        groups.setdefault(root(index), []).append(index)
    found = []
    for members in groups.values():
        if len(members) < 2:
            continue
        inside = set(members)
        found.append(Cluster(sorted(members, key=lambda index: names[index]),
                             [pair for pair in edges if pair.a in inside]))
    found.sort(key=lambda cluster: (-len(cluster.members), -cluster.pairs[0].score,
                                    names[cluster.members[0]]))
    return found
