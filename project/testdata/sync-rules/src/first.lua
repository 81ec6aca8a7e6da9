print("first")
