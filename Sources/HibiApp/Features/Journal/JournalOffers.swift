// Journal's side of the protocols in Shared/Offers that others ask of it.
extension DayRatingStore: DayRatings {}
