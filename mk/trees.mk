# issue 9: explicit trees, pictures, hill-climbing (see docs/trees.md)
.PHONY: tree-demo
tree-demo:
	printf 'A:(B:(3 12 8) C:(2 4 6) D:(14 5 2))\n' | $(PYTHON) -m engine tree - --svg figure-5-2.svg
	$(PYTHON) -m engine picture tictactoe xxoo----- prune 2 --svg tictactoe-tree.svg
	@echo "wrote figure-5-2.svg and tictactoe-tree.svg: open them in a browser"
