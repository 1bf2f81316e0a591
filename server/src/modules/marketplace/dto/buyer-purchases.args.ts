import { ArgsType, Field } from 'type-graphql';
import { IsEmail, MaxLength } from 'class-validator';

/** purchasesByBuyerEmail's e-mail; the page arguments stand beside it as on every list. */
@ArgsType()
export class BuyerPurchasesArgs {
  // An exact address, not a search: an admin looks up the one person who wrote to them, never a pattern over everyone.
  @Field({ description: 'The address the buyer signs in with, exactly (any case)' })
  @MaxLength(320, { message: 'email must be at most 320 characters: an e-mail address is never longer' })
  @IsEmail({ require_tld: false }, { message: 'email must be one e-mail address, such as ana@example.com' })
  email: string;
}
