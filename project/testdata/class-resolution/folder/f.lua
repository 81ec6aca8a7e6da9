return "f"
