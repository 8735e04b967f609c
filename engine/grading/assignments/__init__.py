"""Each graded assignment's own part of the grading kit: its cases and its diagnosis.

One module per assignment (engine.registry names it as the assignment's ``judge``), each
with the same contract:

    edges(rng)              the edge-case candidates, in order: (label, args, files)
    random_candidate(rng)   one random candidate, or None to draw again
    fits(case)              whether a case has the shape of a generated one (else bytes
                            alone are compared)
    graded_files(case)      the output files its grader compares, besides stdout
    judge(case, outcome, lenient)
                            the Findings of a run that ended by itself

engine.grading.generate and engine.grading.diagnose hold what they share.
"""
