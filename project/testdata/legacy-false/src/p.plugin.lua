print("p")
