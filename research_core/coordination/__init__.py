"""What runs next: the coordinate node, its gates and caps, and the scheduling of branch chains."""
