print("nested c")
