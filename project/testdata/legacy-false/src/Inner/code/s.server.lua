print("nested s")
