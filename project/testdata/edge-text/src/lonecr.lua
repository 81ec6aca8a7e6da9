ab
