import { ArgsType, Field } from 'type-graphql';
import { IsReadableText } from '../../../platform/readable-text.js';

/** refundPurchase's arguments; flat on the wire as the contract fixes them: refundPurchase(purchaseId: String!, reason: String). */
@ArgsType()
export class RefundPurchaseArgs {
  @Field({ description: 'APP-<ms>-<suffix> of a paid, completed purchase' })
  purchaseId: string;

  @Field(() => String, { nullable: true, description: 'Why, kept with the purchase' })
  @IsReadableText({ multiline: true })
  reason?: string | null;
}
