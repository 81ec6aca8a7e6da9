print("c")
