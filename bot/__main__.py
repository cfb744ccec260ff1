"""``python -m bot`` — the same as the ``paperbot`` console script."""

from bot.entry import main

if __name__ == "__main__":
    main()
