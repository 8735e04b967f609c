def run_report(argv):
    raise NotImplementedError
