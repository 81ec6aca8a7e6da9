print("s")
